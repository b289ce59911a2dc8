import { settingsOf } from '../../config.ts';
import { requestOrigin } from '../../files/links.ts';
import { disclose, named } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { exportPage } from '../../http/export.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { ExportPageOf, ExportParams, ExportQuery, PatientExportQuery } from './schemas.ts';
import { exportSettings } from './settings.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const rules =
  'Records come oldest update first (then by id). Send `cursor.end` back as `start` until `hasNext` is false: the next page begins with the record after the last one shown (`start` is inclusive), so none is lost or repeated, even when thousands share one update instant. A record changed during the walk comes again at the end, changed. A page holds every record committed before it is read, except any updated after the oldest write of the tenant still in flight (those come once it commits); the `end` of the last page stays CAIRN_EXPORT_SETTLE_MS behind the present, so the next walk gives the records updated that recently again rather than skip a write still committing. API clients only (403 ACCESS_FOR_API_CLIENT_RESTRICTED for a user). Each page costs the same at any depth.';

/** 002 "Export": one route per resource the areas declare (`Area.exports`), each under its own permission. */
const exportRoutes: AreaPlugin = async (app, { services, exports }) => {
  const { settleMs } = settingsOf(services.config, exportSettings);
  for (const [name, source] of exports) {
    const byPatient = source.patientColumn !== undefined;
    app.get(
      `/:tenantName/:instanceName/export/${name}`,
      {
        config: needs(source.permission, {
          callers: 'API_CLIENT',
          discloses: named(name),
        }),
        schema: {
          tags: ['Export'],
          summary: `Export ${source.summary} (cursor pages)`,
          description: `${rules}${byPatient ? ' `patientIds` keeps to those patients.' : ''} Items have the shape of the resource's own read route.`,
          params: ExportParams,
          querystring: byPatient ? PatientExportQuery : ExportQuery,
          response: { 200: ExportPageOf(source.item), ...errors },
        },
      },
      async (request) => {
        const query = request.query as { start?: string; pageSize?: number; patientIds?: string[] };
        const page = { ...query, pageSize: query.pageSize ?? 500 };
        const shown = await exportPage(contextOf(request), source, page, settleMs, requestOrigin(request));
        disclose(request, shown.patients);
        return shown.page;
      },
    );
  }
};

export default exportRoutes;
