import { type Kysely, sql } from 'kysely';

/**
 * FHIR's DocumentReference search (modules/documents/fhir.ts) pages in id order over the document
 * summaries alone: a partial index on them, as 0012's and 0034's are on the encounters (the
 * queries repeat its predicate as a literal). A patient's are served by 0003's CDT patient index.
 * QuestionnaireResponse and Communication need none: their tables' keys (tenant, id) page them,
 * and their patient indexes (0007, 0013, 0016, 0017) serve a patient's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX cdt_records_documents_id_idx ON cdt_records (tenant_id, instance_id, id)
      WHERE cdt_name = '_document_summary'
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX cdt_records_documents_id_idx`.execute(db);
}
