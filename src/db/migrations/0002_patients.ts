import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Patients and their care teams. Every filter and sort that `GET /patients` accepts has an
 * index that leads with (tenant_id, instance_id), so a list never scans another instance's rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE patients (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      external_guid uuid NOT NULL,
      external_id text,
      mrn text,
      nric text,
      access_code text,
      first_name text NOT NULL,
      last_name text NOT NULL,
      middle_name text,
      birth_date date,
      gender text,
      marital_status text,
      primary_language text,
      secondary_language text,
      email text,
      secondary_email text,
      phone text,
      secondary_phone text,
      phone_label text,
      secondary_phone_label text,
      primary_phone_capabilities text[] NOT NULL DEFAULT '{}',
      secondary_phone_capabilities text[] NOT NULL DEFAULT '{}',
      preferable_instance_phone_id uuid,
      country text,
      state text,
      city text,
      zip text,
      address_line1 text,
      address_line2 text,
      timezone text,
      patient_type text,
      notes text,
      cadence jsonb NOT NULL DEFAULT '[]',
      patient_region text,
      patient_territory text,
      patient_territories jsonb NOT NULL DEFAULT '[]',
      -- Derived on write from patient_region/territory and patient_territories, for the filters.
      regions text[] NOT NULL DEFAULT '{}',
      territories text[] NOT NULL DEFAULT '{}',
      custom_attributes jsonb NOT NULL DEFAULT '{}',
      -- Lower-cased name, phones, emails, MRN, NRIC and access code, for the substring search.
      search_text text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, instance_id) REFERENCES instances (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'patients');
  // Identifiers clients look patients up by (GET /patients/{id}?type=EID|EGUID|MRN): unique per instance.
  await sql`CREATE UNIQUE INDEX patients_external_guid_key ON patients (tenant_id, instance_id, external_guid)`.execute(db);
  await sql`CREATE UNIQUE INDEX patients_external_id_key ON patients (tenant_id, instance_id, external_id)`.execute(db);
  await sql`CREATE UNIQUE INDEX patients_mrn_key ON patients (tenant_id, instance_id, mrn)`.execute(db);
  // Substring search over name, phones, emails, MRN, NRIC and access code (001).
  await sql`CREATE INDEX patients_search_idx ON patients USING gin (tenant_id, search_text gin_trgm_ops)`.execute(db);
  await sql`CREATE INDEX patients_regions_idx ON patients USING gin (tenant_id, regions)`.execute(db);
  await sql`CREATE INDEX patients_territories_idx ON patients USING gin (tenant_id, territories)`.execute(db);
  // The email filter is case-insensitive.
  await sql`CREATE INDEX patients_email_lower_idx ON patients (tenant_id, instance_id, lower(email))`.execute(db);
  await sql`
    CREATE INDEX patients_secondary_email_lower_idx ON patients (tenant_id, instance_id, lower(secondary_email))
  `.execute(db);
  // One per sortable field (DECISIONS §8: any scalar field); id last keeps equal values in a stable order.
  await sql`CREATE INDEX patients_id_idx ON patients (tenant_id, instance_id, id)`.execute(db);
  await sql`CREATE INDEX patients_nric_idx ON patients (tenant_id, instance_id, nric, id)`.execute(db);
  await sql`CREATE INDEX patients_access_code_idx ON patients (tenant_id, instance_id, access_code, id)`.execute(db);
  await sql`CREATE INDEX patients_first_name_idx ON patients (tenant_id, instance_id, first_name, id)`.execute(db);
  await sql`CREATE INDEX patients_last_name_idx ON patients (tenant_id, instance_id, last_name, id)`.execute(db);
  await sql`CREATE INDEX patients_middle_name_idx ON patients (tenant_id, instance_id, middle_name, id)`.execute(db);
  await sql`CREATE INDEX patients_birth_date_idx ON patients (tenant_id, instance_id, birth_date, id)`.execute(db);
  await sql`CREATE INDEX patients_gender_idx ON patients (tenant_id, instance_id, gender, id)`.execute(db);
  await sql`CREATE INDEX patients_marital_status_idx ON patients (tenant_id, instance_id, marital_status, id)`.execute(db);
  await sql`CREATE INDEX patients_primary_language_idx ON patients (tenant_id, instance_id, primary_language, id)`.execute(db);
  await sql`
    CREATE INDEX patients_secondary_language_idx ON patients (tenant_id, instance_id, secondary_language, id)
  `.execute(db);
  await sql`CREATE INDEX patients_email_idx ON patients (tenant_id, instance_id, email, id)`.execute(db);
  await sql`CREATE INDEX patients_secondary_email_idx ON patients (tenant_id, instance_id, secondary_email, id)`.execute(db);
  await sql`CREATE INDEX patients_phone_idx ON patients (tenant_id, instance_id, phone, id)`.execute(db);
  await sql`CREATE INDEX patients_secondary_phone_idx ON patients (tenant_id, instance_id, secondary_phone, id)`.execute(db);
  await sql`CREATE INDEX patients_phone_label_idx ON patients (tenant_id, instance_id, phone_label, id)`.execute(db);
  await sql`
    CREATE INDEX patients_secondary_phone_label_idx ON patients (tenant_id, instance_id, secondary_phone_label, id)
  `.execute(db);
  await sql`
    CREATE INDEX patients_preferable_instance_phone_id_idx ON patients (tenant_id, instance_id, preferable_instance_phone_id, id)
  `.execute(db);
  await sql`CREATE INDEX patients_country_idx ON patients (tenant_id, instance_id, country, id)`.execute(db);
  await sql`CREATE INDEX patients_state_idx ON patients (tenant_id, instance_id, state, id)`.execute(db);
  await sql`CREATE INDEX patients_city_idx ON patients (tenant_id, instance_id, city, id)`.execute(db);
  await sql`CREATE INDEX patients_zip_idx ON patients (tenant_id, instance_id, zip, id)`.execute(db);
  await sql`CREATE INDEX patients_address_line1_idx ON patients (tenant_id, instance_id, address_line1, id)`.execute(db);
  await sql`CREATE INDEX patients_address_line2_idx ON patients (tenant_id, instance_id, address_line2, id)`.execute(db);
  await sql`CREATE INDEX patients_timezone_idx ON patients (tenant_id, instance_id, timezone, id)`.execute(db);
  await sql`CREATE INDEX patients_patient_type_idx ON patients (tenant_id, instance_id, patient_type, id)`.execute(db);
  await sql`CREATE INDEX patients_patient_region_idx ON patients (tenant_id, instance_id, patient_region, id)`.execute(db);
  await sql`CREATE INDEX patients_patient_territory_idx ON patients (tenant_id, instance_id, patient_territory, id)`.execute(db);
  await sql`CREATE INDEX patients_created_at_idx ON patients (tenant_id, instance_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX patients_updated_at_idx ON patients (tenant_id, instance_id, updated_at, id)`.execute(db);
  await sql`CREATE INDEX patients_created_by_idx ON patients (tenant_id, instance_id, created_by, id)`.execute(db);
  await sql`CREATE INDEX patients_updated_by_idx ON patients (tenant_id, instance_id, updated_by, id)`.execute(db);
  await sql`CREATE INDEX patients_created_by_name_idx ON patients (tenant_id, instance_id, created_by_name, id)`.execute(db);
  await sql`CREATE INDEX patients_updated_by_name_idx ON patients (tenant_id, instance_id, updated_by_name, id)`.execute(db);

  await sql`
    CREATE TABLE patient_care_team (
      tenant_id uuid NOT NULL,
      patient_id uuid NOT NULL,
      user_id uuid NOT NULL,
      point_of_contact boolean NOT NULL DEFAULT false,
      -- Order as given, so "the first listed" stays meaningful after later edits.
      position integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, patient_id, user_id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE,
      FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'patient_care_team');
  await sql`CREATE INDEX patient_care_team_user_idx ON patient_care_team (tenant_id, user_id, patient_id)`.execute(db);
  // 001: exactly one point of contact per care team; the database guards "at most one".
  await sql`
    CREATE UNIQUE INDEX patient_care_team_poc_key ON patient_care_team (tenant_id, patient_id) WHERE point_of_contact
  `.execute(db);

  // A patient's enrolments in programs. Unassigning deletes the enrolment; a FINISHED one stays as history.
  await sql`
    CREATE TABLE patient_programs (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      instance_id uuid NOT NULL,
      patient_id uuid NOT NULL,
      program_name text NOT NULL,
      status text NOT NULL,
      current_phase jsonb NOT NULL,
      path_history jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'patient_programs');
  await sql`
    CREATE INDEX patient_programs_patient_idx ON patient_programs (tenant_id, patient_id, program_name, created_at)
  `.execute(db);
  // One running enrolment per program and patient; also serves the patients' programName filter.
  await sql`
    CREATE UNIQUE INDEX patient_programs_running_key ON patient_programs (tenant_id, patient_id, program_name)
      WHERE status <> 'FINISHED'
  `.execute(db);
  await sql`
    CREATE INDEX patient_programs_program_idx ON patient_programs (tenant_id, instance_id, program_name, patient_id)
      WHERE status <> 'FINISHED'
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE patient_programs`.execute(db);
  await sql`DROP TABLE patient_care_team`.execute(db);
  await sql`DROP TABLE patients`.execute(db);
}
