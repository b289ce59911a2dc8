import { sql } from 'kysely';
import type { PatientData } from '../../events/work.ts';

/**
 * The delivery log keeps each event's body as sent: a purge removes the deliveries naming the
 * patient (their id, or a phone number or email address of theirs), with their attempts. What
 * the receivers got is theirs to erase; their deliveries still due go unsent (their jobs go too).
 */
export const webhookPatientData: PatientData = {
  tables: [],
  mentions: { webhook_deliveries: { by: 'body (the id, a phone or email)' } },
  purge: async (w, scope, patient) => {
    const terms = [patient.id, ...patient.addresses].map((term) => sql<boolean>`strpos(body, ${term}) > 0`);
    const gone = await w.db
      .deleteFrom('webhook_deliveries')
      .where('tenant_id', '=', scope.tenantId)
      .where(sql<boolean>`(${sql.join(terms, sql` OR `)})`)
      .returning('id')
      .execute();
    if (gone.length === 0) return;
    await w.db
      .deleteFrom('webhook_attempts')
      .where('tenant_id', '=', scope.tenantId)
      .where(
        'delivery_id',
        'in',
        gone.map((row) => row.id),
      )
      .execute();
  },
};
