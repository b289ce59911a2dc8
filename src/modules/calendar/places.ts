import { createHash } from 'node:crypto';
import type { Scope } from '../../db/scope.ts';
import type { Work } from '../../events/work.ts';

/**
 * The places the calendar's appointments are at (`places`, migration 0053), served as FHIR's
 * Location: an encounter's location, when its appointment is in person (a call's location is the
 * patient's phone and a video's an address on the web, neither a place). One place per instance and
 * text, in any case and without its outer spaces; the first spelling written is its name.
 */

/** The text a place is known by: its case and outer spaces are not part of it. */
const keyOf = (text: string) => trimmed(text).toLowerCase();

/** Outer spaces off, as SQL's btrim (the backfill's). */
const trimmed = (text: string) => text.replace(/^ +| +$/g, '');

/**
 * A place's id: the md5 of tenant, instance and text as a uuid, as the migration's backfill computes
 * it in SQL, so a write needs no read to know it and the same place keeps its id.
 */
export function placeId(scope: Scope, text: string): string {
  const hex = createHash('md5')
    .update(`${scope.tenantId}/${scope.instanceId}/${keyOf(text)}`)
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Whether an appointment of this mode is somewhere: in person, or of no mode (002's location rule). */
export const isInPerson = (mode: string | null | undefined) => !['CALL', 'VIDEO'].includes((mode ?? '').toUpperCase());

/**
 * Keeps the place an encounter's appointment is at, in the encounter's write: nothing without an
 * appointment, for one not in person, or for an empty text; a place already kept stays as it is.
 */
export async function recordPlace(
  w: Work,
  scope: Scope,
  appointment: { event_mode: string | null } | undefined,
  text: string | null | undefined,
): Promise<void> {
  if (!appointment || !isInPerson(appointment.event_mode) || !text || keyOf(text) === '') return;
  await w.db
    .insertInto('places')
    .values({
      tenant_id: scope.tenantId,
      instance_id: scope.instanceId,
      id: placeId(scope, text),
      name: trimmed(text),
      created_at: w.now,
      updated_at: w.now,
    })
    .onConflict((conflict) => conflict.columns(['tenant_id', 'id']).doNothing())
    .execute();
}
