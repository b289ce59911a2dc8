import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Care coordination and reference data: care plans and goals, tasks, PDT records and contacts,
 * the generic CDT record store, and dictionary values. Every list filter and sort has an index
 * that leads with the tenant (and the patient or instance it is scoped to).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE care_plans (
      tenant_id uuid NOT NULL,
      patient_id uuid NOT NULL,
      id uuid NOT NULL,
      overview text,
      overview_created_at timestamptz,
      overview_created_by_name text,
      overview_updated_at timestamptz,
      overview_updated_by_name text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, patient_id),
      UNIQUE (tenant_id, id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'care_plans');

  await sql`
    CREATE TABLE goals (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      instance_id uuid NOT NULL,
      patient_id uuid NOT NULL,
      name text NOT NULL,
      type text,
      priority text NOT NULL,
      status text NOT NULL,
      template_name text,
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
  await distributeByTenant(db, 'goals');
  await sql`CREATE INDEX goals_patient_idx ON goals (tenant_id, patient_id, status, created_at, id)`.execute(db);

  await sql`
    CREATE TABLE goal_comments (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      goal_id uuid NOT NULL,
      text text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, goal_id) REFERENCES goals (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'goal_comments');
  await sql`CREATE INDEX goal_comments_goal_idx ON goal_comments (tenant_id, goal_id, created_at, id)`.execute(db);

  await sql`
    CREATE TABLE tasks (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      name text NOT NULL,
      description text,
      due_date timestamptz,
      status text NOT NULL,
      priority text NOT NULL,
      priority_rank smallint NOT NULL,
      patient_id uuid,
      assignee_id uuid,
      goal_id uuid,
      template_name text,
      created_type text,
      source_id uuid,
      source_type text,
      hidden_phi boolean NOT NULL DEFAULT false,
      watchers_type text NOT NULL DEFAULT 'POINT_OF_CONTACT',
      search_text text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE,
      FOREIGN KEY (tenant_id, assignee_id) REFERENCES users (tenant_id, id),
      FOREIGN KEY (tenant_id, goal_id) REFERENCES goals (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'tasks');
  await sql`CREATE INDEX tasks_assignee_idx ON tasks (tenant_id, instance_id, assignee_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX tasks_patient_idx ON tasks (tenant_id, instance_id, patient_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX tasks_status_idx ON tasks (tenant_id, instance_id, status, created_at, id)`.execute(db);
  await sql`CREATE INDEX tasks_priority_idx ON tasks (tenant_id, instance_id, priority_rank, id)`.execute(db);
  await sql`CREATE INDEX tasks_due_date_idx ON tasks (tenant_id, instance_id, due_date, id)`.execute(db);
  await sql`CREATE INDEX tasks_author_idx ON tasks (tenant_id, instance_id, created_by, created_at, id)`.execute(db);
  await sql`CREATE INDEX tasks_template_idx ON tasks (tenant_id, instance_id, template_name, created_at, id)`.execute(db);
  await sql`CREATE INDEX tasks_created_at_idx ON tasks (tenant_id, instance_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX tasks_updated_at_idx ON tasks (tenant_id, instance_id, updated_at, id)`.execute(db);
  await sql`CREATE INDEX tasks_name_idx ON tasks (tenant_id, instance_id, name, id)`.execute(db);
  await sql`CREATE INDEX tasks_goal_idx ON tasks (tenant_id, goal_id, created_at, id)`.execute(db);
  // search (a substring of name or description) and description (of description only, found
  // through search_text, which holds it too).
  await sql`CREATE INDEX tasks_search_idx ON tasks USING gin (tenant_id, search_text gin_trgm_ops)`.execute(db);

  await sql`
    CREATE TABLE task_watchers (
      tenant_id uuid NOT NULL,
      task_id uuid NOT NULL,
      user_id uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, task_id, user_id),
      FOREIGN KEY (tenant_id, task_id) REFERENCES tasks (tenant_id, id) ON DELETE CASCADE,
      FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'task_watchers');
  await sql`CREATE INDEX task_watchers_user_idx ON task_watchers (tenant_id, user_id, task_id)`.execute(db);

  await sql`
    CREATE TABLE task_comments (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      task_id uuid NOT NULL,
      text text NOT NULL,
      author_type text NOT NULL,
      author_id uuid,
      author_name text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, task_id) REFERENCES tasks (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'task_comments');
  await sql`CREATE INDEX task_comments_task_idx ON task_comments (tenant_id, task_id, created_at, id)`.execute(db);

  await sql`
    CREATE TABLE pdt_records (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      pdt_name text NOT NULL,
      values jsonb NOT NULL DEFAULT '{}',
      full_value text NOT NULL DEFAULT '',
      deleted boolean NOT NULL DEFAULT false,
      external_guid uuid NOT NULL,
      external_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'pdt_records');
  await sql`CREATE INDEX pdt_records_type_idx ON pdt_records (tenant_id, instance_id, pdt_name, created_at, id)`.execute(db);
  await sql`CREATE INDEX pdt_records_updated_idx ON pdt_records (tenant_id, instance_id, pdt_name, updated_at, id)`.execute(db);
  await sql`CREATE INDEX pdt_records_search_idx ON pdt_records USING gin (tenant_id, lower(full_value) gin_trgm_ops)`.execute(db);

  await sql`
    CREATE TABLE contacts (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      patient_id uuid NOT NULL,
      pdt_record_id uuid,
      name text,
      email text,
      email_label text,
      email_pdt_field_name text,
      phone text,
      phone_label text,
      phone_pdt_field_name text,
      secondary_phone text,
      secondary_phone_label text,
      secondary_phone_pdt_field_name text,
      relation text,
      active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE,
      FOREIGN KEY (tenant_id, pdt_record_id) REFERENCES pdt_records (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'contacts');
  await sql`CREATE INDEX contacts_patient_idx ON contacts (tenant_id, patient_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX contacts_patient_name_idx ON contacts (tenant_id, patient_id, name, id)`.execute(db);
  await sql`CREATE INDEX contacts_patient_relation_idx ON contacts (tenant_id, patient_id, relation, id)`.execute(db);
  await sql`CREATE INDEX contacts_pdt_record_idx ON contacts (tenant_id, pdt_record_id, patient_id)`.execute(db);

  // The generic CDT record: custom data types of the formation, and the system types that
  // encounters, dispositions and document summaries are stored as.
  await sql`
    CREATE TABLE cdt_records (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      patient_id uuid NOT NULL,
      cdt_name text NOT NULL,
      version integer,
      values jsonb NOT NULL DEFAULT '{}',
      external_guid uuid NOT NULL,
      external_id text,
      source_type text,
      source_id uuid,
      source_name text,
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
  await distributeByTenant(db, 'cdt_records');
  await sql`CREATE INDEX cdt_records_patient_idx ON cdt_records (tenant_id, patient_id, cdt_name, created_at, id)`.execute(db);
  await sql`CREATE INDEX cdt_records_updated_idx ON cdt_records (tenant_id, patient_id, cdt_name, updated_at, id)`.execute(db);
  await sql`CREATE INDEX cdt_records_source_idx ON cdt_records (tenant_id, source_id, cdt_name)`.execute(db);
  await sql`
    CREATE INDEX cdt_records_values_idx ON cdt_records USING gin (tenant_id, patient_id, values jsonb_path_ops)
  `.execute(db);

  await sql`
    CREATE TABLE dictionary_records (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      dictionary_name text NOT NULL,
      values jsonb NOT NULL,
      full_value text NOT NULL DEFAULT '',
      deleted boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'dictionary_records');
  await sql`
    CREATE INDEX dictionary_records_idx ON dictionary_records (tenant_id, instance_id, dictionary_name, created_at, id)
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE dictionary_records`.execute(db);
  await sql`DROP TABLE cdt_records`.execute(db);
  await sql`DROP TABLE contacts`.execute(db);
  await sql`DROP TABLE pdt_records`.execute(db);
  await sql`DROP TABLE task_comments`.execute(db);
  await sql`DROP TABLE task_watchers`.execute(db);
  await sql`DROP TABLE tasks`.execute(db);
  await sql`DROP TABLE goal_comments`.execute(db);
  await sql`DROP TABLE goals`.execute(db);
  await sql`DROP TABLE care_plans`.execute(db);
}
