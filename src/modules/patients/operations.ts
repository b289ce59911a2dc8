import { type Kysely, sql } from 'kysely';
import { uuidv7 } from '../../db/ids.ts';
import type { DB, NewRow, RowUpdate } from '../../db/schema.ts';
import { PREPARED } from '../../db/sql.ts';
import { type Context, readRecording } from '../../http/context.ts';
import { missingUserIds } from '../../tenancy/users.ts';
import { ApiError, validationError } from '../../wire/errors.ts';
import { write, writeStatement } from '../../work/write.ts';
import type { LookupType, PatientRow } from './read.ts';
import { type PatientReadRow, patientRelations, type RelationScope, readPatient, readPatients } from './read.ts';
import { checkTerritories, derivedTerritories, normalizeCareTeam } from './rules.ts';
import type { PatientBulkPatchBody, PatientInput } from './schemas.ts';
import {
  addCareTeamMembers,
  careTeamRows,
  ensurePointOfContact,
  findPatient,
  missingPatientIds,
  removeCareTeamMembers,
  replaceCareTeamMember,
  replaceCareTeams,
  touchPatients,
} from './store.ts';
import { type PatientView, patientViews } from './views.ts';
import { patientWrite } from './write.ts';

/** The patient writes: each is one unit of work, with its audit rows and events. */

async function requireUsers(db: Kysely<DB>, tenantId: string, userIds: string[], path: string) {
  const missing = await missingUserIds(db, tenantId, userIds);
  if (missing.length > 0) {
    throw validationError(
      missing.map((id) => ({ path, message: `user ${id} does not exist` })),
      `Care-team members must be users of this tenant: ${missing.join(', ')} are not`,
    );
  }
}

/** Where a patient's relations are read: the instance, and its name (user territories name it). */
export function relationScope(ctx: Context): RelationScope {
  return { ...ctx.scope, instanceName: ctx.instance.name };
}

/** One statement: the patient and its relations. */
export async function getPatient(ctx: Context, key: string, type: LookupType): Promise<PatientView> {
  const row = await readPatient(ctx.db, relationScope(ctx), key, type, readRecording(ctx));
  if (!row) throw new ApiError('PATIENT_NOT_FOUND', { id: key, type });
  const [view] = await patientViews(ctx, [row]);
  return view!;
}

export async function createPatient(ctx: Context, body: PatientInput) {
  const { scope } = ctx;
  const input = patientWrite(body, await ctx.formation());
  if (input.careTeam)
    await requireUsers(
      ctx.db,
      scope.tenantId,
      input.careTeam.map((m) => m.userId),
      'body.careTeam',
    );
  const id = uuidv7();
  const members = input.careTeam ?? [];
  // One statement, so one round trip and its own transaction: the patient, its care team, its
  // audit row and event, and the patient read back with its relations (the care team from the
  // statement's own CTE, as a statement does not see what it inserts).
  const rows = await writeStatement<PatientReadRow>(ctx, (w) => {
    const patient = ctx.db
      .insertInto('patients')
      .values({
        ...input.columns,
        first_name: input.columns.first_name ?? '',
        last_name: input.columns.last_name ?? '',
        search_text: input.columns.search_text ?? '',
        external_guid: input.columns.external_guid ?? uuidv7(),
        tenant_id: scope.tenantId,
        instance_id: scope.instanceId,
        id,
        ...w.created(),
      } as unknown as NewRow<'patients'>)
      .returningAll();
    const careTeam =
      members.length > 0 &&
      ctx.db
        .insertInto('patient_care_team')
        .values(careTeamRows(scope.tenantId, [id], members, w.now))
        .returningAll();
    w.changed({
      action: 'PATIENT_CREATED',
      entityType: 'PATIENT',
      entityId: id,
      patientId: id,
      changedFields: input.changedFields,
    });
    return sql<PatientReadRow>`${sql.raw(PREPARED)}
      WITH p AS (${patient})
      ${careTeam ? sql`, ct AS (${careTeam})` : sql``}
      ${w.pendingWrites()}
      SELECT p.*, ${sql.join(patientRelations(relationScope(ctx), 'p', careTeam ? 'ct' : 'patient_care_team'))} FROM p
    `;
  });
  const [view] = await patientViews(ctx, rows);
  return view!;
}

export async function updatePatient(ctx: Context, key: string, type: LookupType, body: PatientInput) {
  const { scope } = ctx;
  const formation = await ctx.formation();
  const row = await write(ctx, async (w) => {
    const trx = w.db;
    const existing = await findPatient(trx, scope, key, type, { forUpdate: true });
    if (!existing) throw new ApiError('PATIENT_NOT_FOUND', { id: key, type });
    const input = patientWrite(body, formation, existing);
    // Inside a transaction every query must use trx: PGlite has a single connection.
    if (input.careTeam)
      await requireUsers(
        trx,
        scope.tenantId,
        input.careTeam.map((m) => m.userId),
        'body.careTeam',
      );
    const updated = await trx
      .updateTable('patients')
      .set({
        ...input.columns,
        ...w.updated(),
      } as RowUpdate<'patients'>)
      .where('tenant_id', '=', scope.tenantId)
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (input.careTeam) await replaceCareTeams(trx, scope.tenantId, [existing.id], input.careTeam, w.now);
    w.changed({
      action: 'PATIENT_UPDATED',
      entityType: 'PATIENT',
      entityId: existing.id,
      patientId: existing.id,
      changedFields: input.changedFields,
    });
    return readPatient(trx, relationScope(ctx), updated.id);
  });
  const [view] = await patientViews(ctx, [row!]);
  return view!;
}

export async function deletePatient(ctx: Context, key: string, type: LookupType) {
  const { scope } = ctx;
  await write(ctx, async (w) => {
    const existing = await findPatient(w.db, scope, key, type, { forUpdate: true });
    if (!existing) throw new ApiError('PATIENT_NOT_FOUND', { id: key, type });
    // Everything about the patient goes with it: what the areas and mechanisms declare (files and
    // their blobs, faxes unlinked), then the row, whose foreign keys cascade to the rest.
    for (const data of ctx.services.patientData) await data.remove?.(w, scope, existing.id);
    await w.db.deleteFrom('patients').where('tenant_id', '=', scope.tenantId).where('id', '=', existing.id).execute();
    w.changed({
      action: 'PATIENT_DELETED',
      entityType: 'PATIENT',
      entityId: existing.id,
      patientId: existing.id,
    });
  });
}

/**
 * 001 bulk PATCH: the same change to many patients, all or nothing. Care-team edits apply in
 * order: `careTeam` (replace), additions, replacements, removals; then every team that lost its
 * point of contact gets its first member as one.
 */
export async function bulkUpdatePatients(ctx: Context, body: PatientBulkPatchBody) {
  const { scope } = ctx;
  const formation = await ctx.formation();
  const ids = [...new Set(body.ids)];
  const missing = await missingPatientIds(ctx.db, scope, ids);
  if (missing.length > 0) {
    throw new ApiError('PATIENT_NOT_FOUND', { ids: missing }, `No patients with ids ${missing.slice(0, 10).join(', ')}`);
  }
  const team = body.careTeam === undefined ? undefined : normalizeCareTeam(body.careTeam ?? [], 'body.careTeam');
  const userIds = [
    ...(team ?? []).map((member) => member.userId),
    ...(body.careTeamAdditions ?? []),
    ...(body.careTeamReplacements ?? []).map((pair) => pair.to),
  ];
  await requireUsers(ctx.db, scope.tenantId, userIds, 'body');
  checkTerritories(formation, {
    patientRegion: body.patientRegion ?? null,
    patientTerritory: body.patientTerritory ?? null,
    patientTerritories: body.patientTerritories ?? null,
  });

  const changedFields = Object.keys(body).filter((key) => key !== 'ids');
  const { tenantId } = scope;
  const rows = await write(ctx, async (w) => {
    const trx = w.db;
    const current = await trx
      .selectFrom('patients')
      .select(['id', 'patient_region', 'patient_territory', 'patient_territories'])
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .orderBy('id')
      .forUpdate()
      .execute();
    await updateLocation(trx, tenantId, current, body);
    if (team) await replaceCareTeams(trx, tenantId, ids, team, w.now);
    await addCareTeamMembers(trx, tenantId, ids, body.careTeamAdditions ?? [], w.now);
    for (const pair of body.careTeamReplacements ?? []) {
      await replaceCareTeamMember(trx, tenantId, ids, pair.from, pair.to);
    }
    await removeCareTeamMembers(trx, tenantId, ids, body.careTeamRemovals ?? []);
    await ensurePointOfContact(trx, tenantId, ids);
    await touchPatients(w, tenantId, ids);
    w.changed(
      ids.map((id) => ({ action: 'PATIENT_UPDATED', entityType: 'PATIENT', entityId: id, patientId: id, changedFields })),
    );
    return readPatients(trx, relationScope(ctx), [...new Set(body.ids)]);
  });
  return patientViews(ctx, rows);
}

type LocationRow = Pick<PatientRow, 'id' | 'patient_region' | 'patient_territory' | 'patient_territories'>;

/**
 * Timezone, territories and cadence are the same for every patient, but the derived region
 * lists also depend on what each patient had; patients that end up alike share one UPDATE.
 */
async function updateLocation(trx: Kysely<DB>, tenantId: string, current: LocationRow[], body: PatientBulkPatchBody) {
  const set: Record<string, unknown> = {};
  // As on a single patient, `""` clears the timezone like null.
  if (body.timezone !== undefined) set.timezone = body.timezone || null;
  if (body.cadence !== undefined) set.cadence = JSON.stringify(body.cadence ?? []);
  if (body.patientRegion !== undefined) set.patient_region = body.patientRegion;
  if (body.patientTerritory !== undefined) set.patient_territory = body.patientTerritory;
  if (body.patientTerritories !== undefined) set.patient_territories = JSON.stringify(body.patientTerritories ?? []);
  if (Object.keys(set).length === 0) return;

  const touchesLocation = ['patientRegion', 'patientTerritory', 'patientTerritories'].some((key) => Object.hasOwn(body, key));
  const groups = new Map<string, { ids: string[]; derived: ReturnType<typeof derivedTerritories> | undefined }>();
  for (const row of current) {
    const derived = touchesLocation
      ? derivedTerritories({
          patientRegion: body.patientRegion !== undefined ? body.patientRegion : row.patient_region,
          patientTerritory: body.patientTerritory !== undefined ? body.patientTerritory : row.patient_territory,
          patientTerritories: body.patientTerritories !== undefined ? (body.patientTerritories ?? []) : row.patient_territories,
        })
      : undefined;
    const key = JSON.stringify(derived ?? null);
    const group = groups.get(key) ?? { ids: [], derived };
    group.ids.push(row.id);
    groups.set(key, group);
  }
  for (const group of groups.values()) {
    await trx
      .updateTable('patients')
      .set({ ...set, ...(group.derived ?? {}) })
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', group.ids)
      .execute();
  }
}
