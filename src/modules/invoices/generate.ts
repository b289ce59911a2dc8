import { uuidv7 } from '../../db/ids.ts';
import type { Services } from '../../http/services.ts';
import type { ClaimedJob } from '../../jobs/kinds.ts';
import { requirePatient } from '../../records/patient-scope.ts';
import { patientName } from '../../records/recipients.ts';
import { instanceJobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';
import { billableEncounter } from '../encounters/index.ts';
import { insertInvoice, invoiceOfEncounter, nextInvoiceNumber } from './store.ts';
import type { InvoiceItemJson } from './tables.ts';

export const GENERATE_INVOICE = 'invoices.generate';
/** DECISIONS §8 leaves the terms to Cairn: an invoice is due 30 days after it is made. */
const DUE_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** `INV-000042`: what the interface shows (`customInvoiceId`); paths use the invoice's id. */
export function customInvoiceId(number: number): string {
  return `INV-${String(number).padStart(6, '0')}`;
}

/**
 * The `invoices.generate` job, after ENCOUNTER_FINALIZED (DECISIONS §8): a SELF_PAY encounter
 * with visit services is billed, one invoice per encounter, its items the services (quantity,
 * unit amount in cents, service code, modifiers), its total their sum, its number the tenant's
 * next. An encounter billed already, paid by insurance or with no services makes none. Run
 * again (a retry after a crash), it finds the invoice made and makes no other.
 */
export async function runGenerateInvoice(job: ClaimedJob, services: Services): Promise<number> {
  if (!job.instanceId) return 0;
  const ctx = await instanceJobContext(services, { tenantId: job.tenantId, instanceId: job.instanceId }, 'SYSTEM:invoices');
  if (!ctx) return 0;
  const encounterId = String(job.payload.recordId);
  const encounter = await billableEncounter(ctx, encounterId);
  if (encounter?.status !== 'FINALIZED' || encounter.responsibleParty !== 'SELF_PAY') return 0;
  if (encounter.services.length === 0 || (await invoiceOfEncounter(ctx.db, job.tenantId, encounterId))) return 0;
  const patient = await requirePatient(ctx, encounter.patientId).catch(() => undefined);
  if (!patient) return 0;
  const member = encounter.ownerUserId
    ? await ctx.db
        .selectFrom('users')
        .select(['id', 'first_name', 'last_name', 'username'])
        .where('tenant_id', '=', job.tenantId)
        .where('id', '=', encounter.ownerUserId)
        .executeTakeFirst()
    : undefined;
  const items: InvoiceItemJson[] = encounter.services.map((service) => ({
    id: uuidv7(),
    description: service.title,
    quantity: service.quantity,
    unitAmount: service.serviceCost,
    serviceCode: service.name,
    serviceModifiers: service.modifiers,
  }));
  await write(ctx, async (w) => {
    const number = await nextInvoiceNumber(w.db, job.tenantId);
    const invoice = await insertInvoice(w.db, {
      tenant_id: job.tenantId,
      instance_id: job.instanceId as string,
      id: uuidv7(),
      number,
      custom_invoice_id: customInvoiceId(number),
      status: 'OPEN',
      status_message: null,
      billing_type: 'SELF_PAY',
      payment_type: 'AUTO_CHARGE',
      currency: 'usd',
      invoice_date: w.now,
      due_date: new Date(w.now.getTime() + DUE_DAYS * DAY_MS),
      care_member_id: member?.id ?? null,
      care_member_name: member ? [member.first_name, member.last_name].filter(Boolean).join(' ') || member.username : null,
      patient_id: patient.id,
      patient_name: patientName(patient),
      amount: items.reduce((sum, item) => sum + item.quantity * item.unitAmount, 0),
      amount_paid: 0,
      encounter_id: encounterId,
      related_encounters: [encounterId],
      items: JSON.stringify(items),
      external_id: null,
      paid_at: null,
      ...w.created(),
    });
    w.changed({ action: 'INVOICE_CREATED', entityType: 'INVOICE', entityId: invoice.id, patientId: patient.id });
  });
  return 1;
}
