import { sql } from 'kysely';
import { type Context, readRecording } from '../../http/context.ts';
import { type EncounterRecord, type PageExtras, type ParticipantRow, participantsJson } from './store.ts';

/**
 * What a page of the events list shows beside its events, composed into the page's own statement
 * (issue 43: a host's week was three statements and the access log's): each event's participants
 * and, when asked, its encounter as JSON, its host's zone when an API client reads in it, and the
 * request's access record (not on Citus: http/context.ts readRecording). Every table names the
 * tenant, so Citus routes the statement to one shard.
 */

/** The columns `events-page.ts` adds to each row of the page. */
export interface PageColumns {
  cairn_participants: ParticipantRow[];
  /** The host's own zone (null when unknown or left); only when the answer is in the host's zone. */
  cairn_host_zone?: string | null;
  /** The `__encounter__` record the event is built on, when `includeEncounterInfo`. */
  cairn_encounter?: EncounterRecord | null;
}

export function pageExtras(ctx: Context, shows: { hostZones: boolean; encounterInfo: boolean }): PageExtras {
  const { tenantId, instanceId } = ctx.scope;
  // Ordered by position, as participantsOf reads them.
  const participants = sql`${participantsJson(tenantId, 'e')} AS cairn_participants`;
  // As zonesOf: a live user's zone, else the event's own (views.ts).
  const hostZone = sql`(SELECT hz.timezone FROM users hz
    WHERE hz.tenant_id = ${tenantId} AND hz.id = e.host_id AND hz.deleted_at IS NULL) AS cairn_host_zone`;
  const encounter = sql`(SELECT json_build_object('id', r.id, 'patient_id', r.patient_id, 'values', r.values) FROM cdt_records r
    WHERE r.tenant_id = ${tenantId} AND r.instance_id = ${instanceId}
      AND r.cdt_name = '__encounter__' AND r.id = e.encounter_id) AS cairn_encounter`;
  return {
    columns: [participants, ...(shows.hostZones ? [hostZone] : []), ...(shows.encounterInfo ? [encounter] : [])],
    // The access log's patients of a page (views.ts eventPatients): participants in the role `patient`, exactly.
    patients: {
      select: sql`SELECT cp.participant_id FROM page JOIN calendar_event_participants cp
        ON cp.tenant_id = ${tenantId} AND cp.event_id = page.id WHERE cp.participant_role = 'patient'`,
      of: (row) =>
        (row.cairn_participants as ParticipantRow[])
          .filter((participant) => participant.participant_role === 'patient')
          .map((participant) => participant.participant_id),
    },
    reading: readRecording(ctx),
  };
}
