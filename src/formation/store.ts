import type { Kysely } from 'kysely';
import type { DB, Row } from '../db/schema.ts';
import { ApiError } from '../wire/errors.ts';
import type { Formation } from './schemas.ts';

export const DRAFT_VERSION = -1;

export type FormationRow = Row<'formations'>;

/** `current` and `draft` (or -1) resolve to numbers; a missing current version is a 404. */
export function resolveVersion(requested: string, currentVersion: number | null): number {
  if (requested === 'draft' || requested === String(DRAFT_VERSION)) return DRAFT_VERSION;
  if (requested === 'current') {
    if (currentVersion === null) throw new ApiError('FORMATION_NOT_FOUND', { version: 'current' }, 'Nothing is published yet');
    return currentVersion;
  }
  return Number(requested);
}

export async function loadFormation(
  db: Kysely<DB>,
  tenantId: string,
  instanceId: string,
  version: number,
): Promise<FormationRow | undefined> {
  return db
    .selectFrom('formations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('instance_id', '=', instanceId)
    .where('version', '=', version)
    .executeTakeFirst();
}

export async function listVersions(db: Kysely<DB>, tenantId: string, instanceId: string): Promise<FormationRow[]> {
  return db
    .selectFrom('formations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('instance_id', '=', instanceId)
    .orderBy('version', 'desc')
    .execute();
}

export async function saveDraft(
  db: Kysely<DB>,
  tenantId: string,
  instanceId: string,
  document: Formation,
  now: Date,
): Promise<FormationRow> {
  const json = JSON.stringify(document);
  return db
    .insertInto('formations')
    .values({
      tenant_id: tenantId,
      instance_id: instanceId,
      version: DRAFT_VERSION,
      document: json,
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) =>
      conflict.columns(['tenant_id', 'instance_id', 'version']).doUpdateSet({ document: json, updated_at: now }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Copies the draft to the next version number and makes it current. The instance row is locked
 * so two publishes cannot take the same number.
 */
export async function publishDraft(
  trx: Kysely<DB>,
  tenantId: string,
  instanceId: string,
  publishedByName: string,
  now: Date,
): Promise<FormationRow> {
  await trx
    .selectFrom('instances')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', instanceId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const draft = await loadFormation(trx, tenantId, instanceId, DRAFT_VERSION);
  if (!draft) throw new ApiError('FORMATION_NOT_FOUND', { version: 'draft' }, 'There is no draft to publish');
  const { latest } = await trx
    .selectFrom('formations')
    .select((eb) => eb.fn.max('version').as('latest'))
    .where('tenant_id', '=', tenantId)
    .where('instance_id', '=', instanceId)
    .executeTakeFirstOrThrow();
  const version = Math.max(Number(latest ?? 0), 0) + 1;
  const published = await trx
    .insertInto('formations')
    .values({
      tenant_id: tenantId,
      instance_id: instanceId,
      version,
      document: JSON.stringify(draft.document),
      created_at: now,
      updated_at: now,
      published_at: now,
      published_by_name: publishedByName,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('instances')
    .set({ current_formation_version: version })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', instanceId)
    .execute();
  return published;
}
