import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * FHIR's directory resources (docs/fhir.md): Organization, PractitionerRole and Location.
 *
 * A FHIR resource is read from one relation aliased `r` with tenant_id, id, updated_at (and, for an
 * instance's, instance_id): the views give the tenancy tables and the access grants that shape,
 * each over one table or a join on the tenant's key, so a read filtered on `r.tenant_id` stays on
 * the tenant's shard on Citus (views are expanded into the statement; they hold no rows).
 *
 * - `fhir_tenant_organizations`: the tenant (a reference table) as its own Organization.
 * - `fhir_instance_organizations`: each instance as the care organization, changed when its
 *   formation (its phones) is published.
 * - `fhir_practitioner_roles`: a user's roles in an instance, one row per user and instance (a
 *   deleted user holds none).
 * - `places` (a table): the places the calendar's in-person appointments are at, one per instance
 *   and text (any case), kept by the encounters' writes; its id is the md5 of the tenant, the
 *   instance and the lower-cased text, so a write and this backfill agree without reading first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE VIEW fhir_tenant_organizations AS
    SELECT t.id AS tenant_id, t.id, t.name, t.title, t.created_at AS updated_at FROM tenants t`.execute(db);
  await sql`
    CREATE VIEW fhir_instance_organizations AS
    SELECT i.tenant_id, i.id, i.id AS instance_id, i.name, i.description, f.document -> 'instancePhones' AS phones,
      greatest(i.created_at, f.published_at) AS updated_at
    FROM instances i
    LEFT JOIN formations f
      ON f.tenant_id = i.tenant_id AND f.instance_id = i.id AND f.version = i.current_formation_version`.execute(db);
  await sql`
    CREATE VIEW fhir_practitioner_roles AS
    SELECT g.tenant_id, g.instance_id, g.principal_id AS id,
      array_agg(g.name ORDER BY g.primary_role DESC, g.name) AS roles,
      max(g.updated_at) AS updated_at
    FROM access_grants g
    WHERE g.principal_type = 'USER' AND g.grant_type = 'SECURITY_ROLE'
    GROUP BY g.tenant_id, g.instance_id, g.principal_id`.execute(db);
  // A search of an instance's roles pages in user id order: this index, not the grants' key (user first).
  await sql`CREATE INDEX access_grants_instance_idx ON access_grants (tenant_id, instance_id, principal_id)`.execute(db);

  await sql`
    CREATE TABLE places (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      name text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, instance_id) REFERENCES instances (tenant_id, id) ON DELETE CASCADE
    )`.execute(db);
  await distributeByTenant(db, 'places');
  // Location searches: an instance's places in id order, and `name` by the start of the text, any case.
  await sql`CREATE INDEX places_instance_idx ON places (tenant_id, instance_id, id)`.execute(db);
  await sql`CREATE INDEX places_name_pattern_idx ON places (tenant_id, instance_id, lower(name) text_pattern_ops)`.execute(db);
  // The places the calendar already has: encounters' locations whose appointment is in person (or of no mode).
  await sql`
    INSERT INTO places (tenant_id, instance_id, id, name, created_at, updated_at)
    SELECT e.tenant_id, e.instance_id,
      md5(e.tenant_id::text || '/' || e.instance_id::text || '/' || lower(btrim(e.values ->> 'location')))::uuid,
      min(btrim(e.values ->> 'location')), min(e.created_at), min(e.created_at)
    FROM cdt_records e
    JOIN calendar_events ev ON ev.tenant_id = e.tenant_id AND ev.encounter_id = e.id
    WHERE e.cdt_name = '__encounter__' AND btrim(coalesce(e.values ->> 'location', '')) <> ''
      AND upper(coalesce(ev.event_mode, '')) NOT IN ('CALL', 'VIDEO')
    GROUP BY e.tenant_id, e.instance_id, lower(btrim(e.values ->> 'location'))
    ON CONFLICT DO NOTHING`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE places`.execute(db);
  await sql`DROP INDEX access_grants_instance_idx`.execute(db);
  await sql`DROP VIEW fhir_practitioner_roles`.execute(db);
  await sql`DROP VIEW fhir_instance_organizations`.execute(db);
  await sql`DROP VIEW fhir_tenant_organizations`.execute(db);
}
