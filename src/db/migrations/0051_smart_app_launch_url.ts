import { type Kysely, sql } from 'kysely';

/**
 * An app's launch URL (SMART's EHR launch): where the console opens it for the patient on screen,
 * with `iss` and `launch`. Optional: an app launched only standalone has none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE smart_apps ADD COLUMN launch_url text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE smart_apps DROP COLUMN launch_url`.execute(db);
}
