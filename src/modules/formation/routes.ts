import { Type } from 'typebox';
import { actorOf } from '../../events/audit.ts';
import { instanceScope } from '../../http/access-hook.ts';
import { ApiError, ErrorBody } from '../../http/errors.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { InstanceParams, JsonObject } from '../../http/schemas.ts';
import type { Instance } from '../../http/tenancy.ts';
import { publish, putDraft } from './operations.ts';
import { type Formation, FormationDocument, FormationVersionInfo, FormationVersionParam } from './schemas.ts';
import { formationSections, type SectionOptions, sectionItems } from './sections.ts';
import { type FormationRow, listVersions, loadFormation, resolveVersion } from './store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Formation'];
const VersionParams = Type.Object({ ...InstanceParams.properties, version: FormationVersionParam });
const SectionQuery = Type.Object({
  includeInternal: Type.Optional(Type.Boolean({ description: 'Dictionaries: list internal ones too' })),
});
const FormationVersion = Type.Object({ ...FormationVersionInfo.properties, formation: FormationDocument });

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
  async function formationAt(instance: Instance, requested: string): Promise<FormationRow> {
    const version = resolveVersion(requested, instance.currentFormationVersion);
    const row = await loadFormation(services.db, instance.tenantId, instance.id, version);
    if (!row) throw new ApiError('FORMATION_NOT_FOUND', { version: requested });
    return row;
  }

  function section(formation: Formation, name: string, options: SectionOptions) {
    // Own keys only: `constructor` or `__proto__` must not resolve to Object.prototype's members.
    const entry = Object.hasOwn(formationSections, name) ? formationSections[name] : undefined;
    if (!entry) throw new ApiError('FORMATION_SECTION_NOT_FOUND', { section: name, sections: Object.keys(formationSections) });
    return { items: sectionItems(formation, entry, options), itemKey: entry.itemKey };
  }

  app.get(
    '/:tenantName/:instanceName/formations/:version',
    {
      schema: {
        tags,
        summary: 'A whole formation version: a number, current, or draft (-1)',
        params: VersionParams,
        response: { 200: FormationVersion, ...errors },
      },
    },
    async (request) => {
      const { instance } = instanceScope(request);
      const row = await formationAt(instance, request.params.version);
      return { ...versionInfo(row, instance), formation: row.document as Formation };
    },
  );

  app.get(
    '/:tenantName/:instanceName/formations/:version/:section',
    {
      schema: {
        tags,
        summary: 'One section of a formation version (a bare array)',
        description: 'Dictionaries include the defaults (timezone, cpt, icd-10); internal ones only with includeInternal=true.',
        params: Type.Object({ ...VersionParams.properties, section: Type.String() }),
        querystring: SectionQuery,
        response: { 200: Type.Array(JsonObject), ...errors },
      },
    },
    async (request) => {
      const { instance } = instanceScope(request);
      const row = await formationAt(instance, request.params.version);
      return section(row.document as Formation, request.params.section, request.query).items;
    },
  );

  app.get(
    '/:tenantName/:instanceName/formations/:version/:section/:itemName',
    {
      schema: {
        tags,
        summary: 'One item of a formation section (a bare object)',
        params: Type.Object({ ...VersionParams.properties, section: Type.String(), itemName: Type.String() }),
        response: { 200: JsonObject, ...errors },
      },
    },
    async (request) => {
      const { instance } = instanceScope(request);
      const { section: sectionName, itemName } = request.params;
      const row = await formationAt(instance, request.params.version);
      // One item is found by its name, internal or not.
      const { items, itemKey } = section(row.document as Formation, sectionName, { includeInternal: true });
      const item = items.find((candidate) => candidate[itemKey] === itemName);
      if (!item) throw new ApiError('FORMATION_ITEM_NOT_FOUND', { section: sectionName, name: itemName });
      return item;
    },
  );

  app.put(
    '/:tenantName/:instanceName/formations/draft',
    {
      schema: {
        tags,
        summary: 'Replace the whole draft (checked fully on publish)',
        params: InstanceParams,
        body: FormationDocument,
        response: { 200: FormationVersion, ...errors },
      },
    },
    async (request) => {
      const { instance } = instanceScope(request);
      const row = await putDraft(services, instance.id, actorOf(request), request.body);
      return { ...versionInfo(row, instance), formation: row.document as Formation };
    },
  );

  app.post(
    '/:tenantName/:instanceName/formations/draft/publish',
    {
      schema: {
        tags,
        summary: 'Publish the draft as the next version, which becomes current',
        params: InstanceParams,
        response: { 200: FormationVersion, ...errors },
      },
    },
    async (request) => {
      const { instance } = instanceScope(request);
      const row = await publish(services, instance.id, actorOf(request));
      return {
        ...versionInfo(row, { ...instance, currentFormationVersion: row.version }),
        formation: row.document as Formation,
      };
    },
  );

  app.get(
    '/:tenantName/:instanceName/export/formation_version',
    {
      schema: {
        tags,
        summary: 'The formation versions of this instance, newest first',
        params: InstanceParams,
        response: { 200: Type.Array(FormationVersionInfo), ...errors },
      },
    },
    async (request) => {
      const { instance } = instanceScope(request);
      const rows = await listVersions(services.db, instance.tenantId, instance.id);
      return rows.map((row) => versionInfo(row, instance));
    },
  );
};

export default formationRoutes;
