import { Type } from 'typebox';
import { type Formation, FormationVersionInfo, FormationVersionParam } from '../../formation/schemas.ts';
import { type FormationRow, listVersions, loadFormation, resolveVersion } from '../../formation/store.ts';
import { type Context, contextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import type { Instance } from '../../tenancy/tenancy.ts';
import { ApiError, ErrorBody } from '../../wire/errors.ts';
import { InstanceParams, JsonObject } from '../../wire/schemas.ts';
import { publish, putDraft } from './operations.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Formation'];
const VersionParams = Type.Object({ ...InstanceParams.properties, version: FormationVersionParam });
const SectionQuery = Type.Object({
  includeInternal: Type.Optional(Type.Boolean({ description: 'Dictionaries: list internal ones too' })),
});

function versionInfo(row: FormationRow, instance: Instance) {
  return {
    version: row.version,
    status:
      row.version === -1
        ? ('DRAFT' as const)
        : row.version === instance.currentFormationVersion
          ? ('CURRENT' as const)
          : ('PUBLISHED' as const),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    publishedAt: row.published_at,
    publishedByName: row.published_by_name,
  };
}

/** DECISIONS §6: reading a version, a section or one item; editing and publishing the draft. */
const formationRoutes: AreaPlugin = async (app, { services }) => {
  const shape = services.formationShape;
  // The shape the areas' sections make, typed as the document the code reads.
  const FormationDocument = Type.Unsafe<Formation>(shape.schema);
  const FormationVersion = Type.Object({ ...FormationVersionInfo.properties, formation: FormationDocument });

  async function formationAt({ db, instance }: Context, requested: string): Promise<FormationRow> {
    const version = resolveVersion(requested, instance.currentFormationVersion);
    const row = await loadFormation(db, instance.tenantId, instance.id, version);
    if (!row) throw new ApiError('FORMATION_NOT_FOUND', { version: requested });
    return row;
  }

  function section(name: string) {
    const entry = shape.section(name);
    if (!entry) throw new ApiError('FORMATION_SECTION_NOT_FOUND', { section: name, sections: shape.routes });
    return entry;
  }

  app.get(
    '/:tenantName/:instanceName/formations/:version',
    {
      config: needs('FORMATION_READ'),
      schema: {
        tags,
        summary: 'A whole formation version: a number, current, or draft (-1)',
        params: VersionParams,
        response: { 200: FormationVersion, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const row = await formationAt(ctx, request.params.version);
      return { ...versionInfo(row, ctx.instance), formation: row.document as Formation };
    },
  );

  app.get(
    '/:tenantName/:instanceName/formations/:version/:section',
    {
      config: needs('FORMATION_READ'),
      schema: {
        tags,
        summary: 'One section of a formation version (a bare array; `encounter-disposition` is one object)',
        description:
          'Sections: ' +
          shape.routes.join(', ') +
          '. Dictionaries include the defaults (timezone, cpt, icd-10), internal ones only with includeInternal=true; ' +
          'document-types include doc-type-assessment, doc-type-esign and doc-type-others.',
        params: Type.Object({ ...VersionParams.properties, section: Type.String() }),
        querystring: SectionQuery,
        response: { 200: Type.Union([Type.Array(JsonObject), JsonObject]), ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const row = await formationAt(ctx, request.params.version);
      return shape.body(row.document as Formation, section(request.params.section), request.query);
    },
  );

  app.get(
    '/:tenantName/:instanceName/formations/:version/:section/:itemName',
    {
      config: needs('FORMATION_READ'),
      schema: {
        tags,
        summary: 'One item of a formation section (a bare object)',
        params: Type.Object({ ...VersionParams.properties, section: Type.String(), itemName: Type.String() }),
        response: { 200: JsonObject, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { section: sectionName, itemName } = request.params;
      const row = await formationAt(ctx, request.params.version);
      // One item is found by its name, internal or not.
      const entry = section(sectionName);
      const items = shape.items(row.document as Formation, entry, { includeInternal: true });
      const item = items.find((candidate) => candidate[entry.itemKey ?? 'name'] === itemName);
      if (!item) throw new ApiError('FORMATION_ITEM_NOT_FOUND', { section: sectionName, name: itemName });
      return item;
    },
  );

  app.put(
    '/:tenantName/:instanceName/formations/draft',
    {
      config: needs('FORMATION_WRITE'),
      schema: {
        tags,
        summary: 'Replace the whole draft (checked fully on publish)',
        params: InstanceParams,
        body: FormationDocument,
        response: { 200: FormationVersion, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const row = await putDraft(ctx, request.body);
      return { ...versionInfo(row, ctx.instance), formation: row.document as Formation };
    },
  );

  app.post(
    '/:tenantName/:instanceName/formations/draft/publish',
    {
      config: needs('FORMATION_WRITE'),
      schema: {
        tags,
        summary: 'Publish the draft as the next version, which becomes current',
        params: InstanceParams,
        response: { 200: FormationVersion, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const row = await publish(ctx);
      return {
        ...versionInfo(row, { ...ctx.instance, currentFormationVersion: row.version }),
        formation: row.document as Formation,
      };
    },
  );

  app.get(
    '/:tenantName/:instanceName/export/formation_version',
    {
      config: needs('FORMATION_READ'),
      schema: {
        tags,
        summary: 'The formation versions of this instance, newest first',
        params: InstanceParams,
        response: { 200: Type.Array(FormationVersionInfo), ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const rows = await listVersions(ctx.db, ctx.scope.tenantId, ctx.scope.instanceId);
      return rows.map((row) => versionInfo(row, ctx.instance));
    },
  );

  app.get(
    '/:tenantName/:instanceName/export/formations/:version/assessments',
    {
      config: needs('FORMATION_READ'),
      schema: {
        tags,
        summary: "A ZIP holding one JSON file: the version's assessment formations (DECISIONS §6)",
        params: VersionParams,
        // The ZIP on success; errors are JSON like everywhere else, and both are documented.
        response: {
          200: {
            description: 'assessments.json, zipped',
            content: { 'application/zip': { schema: Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' }) } },
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const row = await formationAt(ctx, request.params.version);
      const assessments = (row.document as Formation).assessments ?? [];
      const { strToU8, zipSync } = await import('fflate');
      const zip = zipSync({ 'assessments.json': strToU8(JSON.stringify(assessments, null, 2)) });
      const version = row.version === -1 ? 'draft' : row.version;
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="formation-${version}-assessments.zip"`)
        .send(Buffer.from(zip));
    },
  );
};

export default formationRoutes;
