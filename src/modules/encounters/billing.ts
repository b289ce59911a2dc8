import type { Context } from '../../http/context.ts';
import type { PricedService } from './rules.ts';
import { ENCOUNTER } from './types.ts';

/** What billing reads of an encounter: who saw whom, who pays, and the visit services priced when they were set. */
export interface BillableEncounter {
  id: string;
  patientId: string;
  status: string;
  responsibleParty: string | null;
  ownerUserId: string | null;
  services: (PricedService & { title: string })[];
}

/** The encounter `id` of this instance as billing reads it, or undefined when it is gone. */
export async function billableEncounter(ctx: Context, id: string): Promise<BillableEncounter | undefined> {
  const row = await ctx.db
    .selectFrom('cdt_records')
    .select(['id', 'patient_id', 'values'])
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('instance_id', '=', ctx.scope.instanceId)
    .where('cdt_name', '=', ENCOUNTER)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row?.patient_id) return undefined;
  const values = row.values as Record<string, unknown>;
  const titles = new Map(((await ctx.formation()).visitServices ?? []).map((service) => [service.name, service.title]));
  const services = Array.isArray(values.visitServices) ? (values.visitServices as PricedService[]) : [];
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    id: row.id,
    patientId: row.patient_id,
    status: text(values.status) ?? '',
    responsibleParty: text(values.responsibleParty),
    ownerUserId: text(values.ownerUserId),
    services: services.map((service) => ({ ...service, title: titles.get(service.name) ?? service.name })),
  };
}
