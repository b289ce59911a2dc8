import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { sendFile } from '../../../files/download.ts';
import { requestOrigin } from '../../../files/links.ts';
import type { Permission } from '../../../formation/permissions.ts';
import { disclose, named } from '../../../http/access-log.ts';
import { type Context, contextOf } from '../../../http/context.ts';
import type { FhirResource } from '../../../http/fhir.ts';
import type { AreaPlugin } from '../../../http/plugin.ts';
import { needs } from '../../../http/route-access.ts';
import { mayReadType } from '../../../http/scopes.ts';
import { ApiError } from '../../../wire/errors.ts';
import { InstanceParams, Uuid } from '../../../wire/schemas.ts';
import { write } from '../../../work/write.ts';
import { FHIR_JSON, fhirResponses, Resource, useFhirErrors } from '../outcome.ts';
import { NDJSON, RUN_EXPORT } from './job.ts';
import { compartmentOf, type KickOffQuery, planExport, startExport } from './kickoff.ts';
import { sourcesOf, typeOfKey } from './sources.ts';
import { deadJobOf, type ExportRow, filesOfExport, findExport, findExportFile, lockExport, removeExport } from './store.ts';
import type { ExportLevel } from './tables.ts';

/**
 * FHIR Bulk Data Access 2.0 `$export` (docs/fhir-bulk-export.md): the kick-off (system and
 * Patient level), the status URL (202 with X-Progress, the manifest, DELETE to cancel) and the
 * output files, each read by bearer token and recorded in the access log with its patients.
 */

const tags = ['FHIR R4'];
const BASE = '/:tenantName/:instanceName/fhir/R4';

/** A status poll answers this: files are written a few a second at most, a faster poll learns little. */
const RETRY_AFTER_SECONDS = 5;

const KickOffQuerySchema = Type.Object({
  _type: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: 100,
      description: 'Resource types, comma-separated or repeated: only those (each needs its read permission)',
    }),
  ),
  _since: Type.Optional(Type.String({ maxLength: 64, description: 'A FHIR instant: only resources updated after it' })),
  _outputFormat: Type.Optional(
    Type.String({ maxLength: 64, description: '`application/fhir+ndjson` (the default), `application/ndjson` or `ndjson`' }),
  ),
});
const ExportParams = Type.Object({ ...InstanceParams.properties, exportId: Uuid });
const FileParams = Type.Object({ ...InstanceParams.properties, exportFileId: Uuid });

const FileItem = Type.Object({
  type: Type.String({ description: 'The resource type of every line' }),
  url: Type.String({ description: 'Read it with the same bearer token' }),
  count: Type.Integer({ description: 'Resources in the file' }),
});
const Manifest = Type.Object({
  transactionTime: Type.String({ description: 'Resources updated after it are left for the next export (`_since` it)' }),
  request: Type.String({ description: 'The kick-off URL' }),
  requiresAccessToken: Type.Boolean(),
  output: Type.Array(FileItem),
  error: Type.Array(FileItem, { description: 'Always empty: an export that fails answers its status 500' }),
});

const Bytes = Type.Unsafe<unknown>({ type: 'string', format: 'binary' });
const ndjsonAnswer = (description: string) => ({ description, content: { [NDJSON]: { schema: Bytes } } });
const outcomeAnswer = (description: string) => ({ description, content: { 'application/fhir+json': { schema: Resource } } });

/** An OperationOutcome that informs (a 202's body). */
const informational = (diagnostics: string) => ({
  resourceType: 'OperationOutcome',
  issue: [{ severity: 'information', code: 'informational', diagnostics }],
});

const baseOf = (request: FastifyRequest) => {
  const { tenantName, instanceName } = request.params as { tenantName: string; instanceName: string };
  return `${requestOrigin(request)}/${tenantName}/${instanceName}/fhir/R4`;
};

/** The caller's export, whose every read permission it holds (Bulk Data: as the kick-off needed). */
async function requireExport(ctx: Context, id: string): Promise<ExportRow> {
  const row = await findExport(ctx.db, ctx.scope, id);
  if (!row) throw new ApiError('FHIR_EXPORT_NOT_FOUND', { exportId: id });
  const missing = row.permissions.find((permission) => !ctx.can(permission as Permission));
  if (missing) throw new ApiError('ACCESS_DENIED', { permission: missing }, `The caller lacks the permission ${missing}`);
  return row;
}

/** Where an export in progress is, in under 100 characters (Bulk Data: X-Progress). */
function progressOf(row: ExportRow): string {
  const key = row.sources[row.source_index];
  const reading = key ? `reading ${typeOfKey(key)} (${row.source_index + 1} of ${row.sources.length})` : 'finishing';
  return `${row.resources} resources in ${row.files} files; ${reading}`.slice(0, 99);
}

const bulkExportRoutes: AreaPlugin = async (app, { services, fhir }) => {
  useFhirErrors(app);
  const sources = sourcesOf(fhir);

  const kickOff = (level: ExportLevel) => async (request: FastifyRequest, reply: FastifyReply) => {
    const ctx = contextOf(request);
    const mayRead = (resource: FhirResource) => ctx.can(resource.permission) && mayReadType(ctx.caller?.scopes, resource.type);
    const plan = planExport(sources, level, request.query as KickOffQuery, request.headers, mayRead);
    plan.compartment = compartmentOf(ctx.caller, plan.sources);
    const row = await startExport(ctx, plan, `${requestOrigin(request)}${request.url}`);
    const status = `${baseOf(request)}/$export-status/${row.id}`;
    reply.code(202).header('content-location', status).type(FHIR_JSON);
    return informational(`The export has started: poll ${status}`);
  };
  const kickOffRoute = (level: ExportLevel) => ({
    config: needs('FHIR_EXPORT', { discloses: { none: 'the kick-off answers where to follow the export' }, scope: '*' }),
    schema: {
      tags,
      summary: `Start a bulk export of ${level === 'SYSTEM' ? 'every resource' : "the patients' resources and the patients"} (Bulk Data 2.0)`,
      description:
        'Needs `Prefer: respond-async` (400 otherwise) and `Accept: application/fhir+json` when an Accept is sent. Answers 202 with `Content-Location`, the status URL. Without `_type`, the types the caller may read; a type named whose read permission the caller lacks is 403. `_elements`, `_typeFilter`, `patient` and `includeAssociatedData` are 400 (not supported).',
      params: InstanceParams,
      querystring: KickOffQuerySchema,
      response: {
        202: outcomeAnswer('Started: `Content-Location` is the status URL'),
        ...fhirResponses(400, 401, 403, 404, 429, 503),
      },
    },
  });
  app.get(`${BASE}/$export`, kickOffRoute('SYSTEM'), kickOff('SYSTEM'));
  app.get(`${BASE}/Patient/$export`, kickOffRoute('PATIENT'), kickOff('PATIENT'));

  const following = needs('FHIR_EXPORT', { discloses: { none: 'the status names files, not their content' }, scope: '*' });

  app.get(
    `${BASE}/$export-status/:exportId`,
    {
      config: following,
      schema: {
        tags,
        summary: "A bulk export's status: 202 while it runs, its manifest once done",
        description: `202 with \`X-Progress\` and \`Retry-After\` (${RETRY_AFTER_SECONDS} s) while in progress; 200 with the manifest (\`application/json\`, \`Expires\`: when the files go) once complete; 500 OperationOutcome when it failed; 404 once cancelled or expired. Needs every read permission the export did.`,
        params: ExportParams,
        response: {
          200: { description: 'The manifest', content: { 'application/json': { schema: Manifest } } },
          202: { description: 'In progress: `X-Progress` says how far' },
          ...fhirResponses(400, 401, 403, 404, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const row = await requireExport(ctx, request.params.exportId);
      if (row.status === 'FAILED') {
        throw new ApiError('FHIR_EXPORT_FAILED', { exportId: row.id }, `The export failed: ${row.error ?? 'unknown'}`);
      }
      if (row.status === 'IN_PROGRESS') {
        const dead = await deadJobOf(ctx.db, ctx.scope.tenantId, RUN_EXPORT, row.id);
        if (dead) {
          throw new ApiError(
            'FHIR_EXPORT_FAILED',
            { exportId: row.id, jobId: dead.id },
            `The export failed (${dead.last_error ?? 'unknown'}); an administrator may requeue its job ${dead.id}, which resumes it`,
          );
        }
        return reply.code(202).header('x-progress', progressOf(row)).header('retry-after', String(RETRY_AFTER_SECONDS)).send();
      }
      const base = baseOf(request);
      const files = await filesOfExport(ctx.db, ctx.scope, row.id);
      reply.type('application/json').header('expires', row.expires_at.toUTCString());
      return {
        transactionTime: row.transaction_time.toISOString(),
        request: row.request,
        requiresAccessToken: true,
        output: files.map((file) => ({ type: file.type, url: `${base}/$export-file/${file.id}`, count: file.resources })),
        error: [],
      };
    },
  );

  app.delete(
    `${BASE}/$export-status/:exportId`,
    {
      config: following,
      schema: {
        tags,
        summary: 'Cancel a bulk export, or say its files are no longer needed: it and its files are removed',
        description: 'Answers 202; its status and files are 404 from then on. Needs every read permission the export did.',
        params: ExportParams,
        response: { 202: outcomeAnswer('Cancelled'), ...fhirResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { exportId } = request.params;
      await requireExport(ctx, exportId);
      await write(ctx, async (w) => {
        const row = await lockExport(w, ctx.scope, exportId);
        if (!row) throw new ApiError('FHIR_EXPORT_NOT_FOUND', { exportId });
        await removeExport(w, ctx.scope, row);
      });
      reply.code(202).type(FHIR_JSON);
      return informational('The export is cancelled; its files are being removed');
    },
  );

  app.get(
    `${BASE}/$export-file/:exportFileId`,
    {
      config: needs('FHIR_EXPORT', { discloses: named('FHIR_EXPORT_FILE'), scope: '*' }),
      schema: {
        tags,
        summary: "One of a bulk export's files: NDJSON, a resource per line",
        description:
          "Needs the read permission of the file's resource type too: without it, or for another tenant's or instance's file, 404. Every download is in the access log with the patients the file holds. One Range is served (206).",
        params: FileParams,
        response: {
          200: ndjsonAnswer('The file'),
          206: ndjsonAnswer('The range asked for'),
          ...fhirResponses(400, 401, 403, 404, 416, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { exportFileId } = request.params;
      const file = await findExportFile(ctx.db, ctx.scope, exportFileId);
      const readable = file && ctx.can(file.permission as Permission) && mayReadType(ctx.caller?.scopes, file.type);
      if (!file || !readable) throw new ApiError('FHIR_EXPORT_FILE_NOT_FOUND', { exportFileId });
      disclose(request, file.patient_ids);
      return sendFile(request, reply, services.files.blobs, {
        size: file.size,
        content_type: NDJSON,
        sha256: file.sha256,
        original_name: `${file.type}-${file.seq + 1}.ndjson`,
        storage_key: file.storage_key,
      });
    },
  );
};

export default bulkExportRoutes;
