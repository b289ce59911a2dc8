import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { Scope } from '../../../db/scope.ts';
import { OAuthRecords } from './adapter.ts';

/**
 * SMART's EHR launch (docs/identity.md): Cairn's API issues a `launch` value naming a patient and
 * an app; the app sends it back in its authorization request, and the token answer then names the
 * patient (`patient`). Both are records of the instance's authorization server: the launch for five
 * minutes, the context it becomes for as long as the grant (revoked with it).
 */

export const LAUNCH_SECONDS = 5 * 60;

export interface Launch {
  patient: string;
  clientId: string;
  /** The user who opened the app, when a user did: only they may use the launch. */
  userId: string | null;
}

const launches = (db: Kysely<DB>, scope: Scope, now: () => Date) => new OAuthRecords(db, scope, 'Launch', now);
const contexts = (db: Kysely<DB>, scope: Scope, now: () => Date) => new OAuthRecords(db, scope, 'LaunchContext', now);

export async function issueLaunch(db: Kysely<DB>, scope: Scope, now: () => Date, launch: Launch): Promise<string> {
  const id = randomBytes(24).toString('base64url');
  await launches(db, scope, now).upsert(id, { ...launch }, LAUNCH_SECONDS);
  return id;
}

/** The launch an authorization names, when it is unexpired and for this app. */
export async function launchOf(
  db: Kysely<DB>,
  scope: Scope,
  now: () => Date,
  id: string,
  clientId: string,
): Promise<Launch | undefined> {
  const found = (await launches(db, scope, now).find(id)) as Launch | undefined;
  return found?.clientId === clientId ? found : undefined;
}

/** The patient a grant was launched with, kept under the grant so that its revocation takes it. */
export async function keepContext(
  db: Kysely<DB>,
  scope: Scope,
  now: () => Date,
  grantId: string,
  patient: string,
  seconds: number,
) {
  await contexts(db, scope, now).upsert(grantId, { grantId, patient }, seconds);
}

export async function contextOf(
  db: Kysely<DB>,
  scope: Scope,
  now: () => Date,
  grantId: string,
): Promise<{ patient: string } | undefined> {
  return (await contexts(db, scope, now).find(grantId)) as { patient: string } | undefined;
}
