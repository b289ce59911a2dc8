import { Type } from 'typebox';
import { tenantContextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody, TenantParams } from '../../wire/schemas.ts';
import { deleteProviderSettings, listProviders, putProviderSettings } from './operations.ts';
import { ChannelParams, InstanceChannelParams, ProviderChannel, ProviderSettings, SettingsInput } from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Providers'];
const levels =
  "An instance uses its own configuration of a channel, else its tenant's, else the server's (CAIRN_<CHANNEL>_DRIVER and the drivers' variables); each is whole on its own. Credentials (each driver's `secrets`) are sealed at rest and never answered back: `secretsSet` names those stored, and a PUT that leaves one out keeps it (same driver). A relay a tenant configures is reached only at public addresses unless the operator sets CAIRN_PROVIDERS_ALLOW_PRIVATE.";

/** Outside services' drivers per tenant and instance (issue 16). */
const providerRoutes: AreaPlugin = async (app) => {
  app.get(
    '/:tenantName/admin/providers',
    {
      config: needs('PROVIDER_MANAGE'),
      schema: {
        tags,
        summary: 'Every outside service: its drivers, their options, the server’s choice and the configurations stored',
        description: levels,
        params: TenantParams,
        response: { 200: Type.Array(ProviderChannel), ...errors },
      },
    },
    async (request) => listProviders(tenantContextOf(request)),
  );

  for (const [path, params, level] of [
    ['/:tenantName/admin/providers/:channel', ChannelParams, "the tenant's (for every instance without its own)"],
    ['/:tenantName/admin/providers/:channel/instances/:instanceName', InstanceChannelParams, "one instance's"],
  ] as const) {
    const instanceOf = (p: object) => ('instanceName' in p ? String(p.instanceName) : null);
    app.put(
      path,
      {
        config: needs('PROVIDER_MANAGE'),
        schema: {
          tags,
          summary: `Set ${level} driver and options of an outside service`,
          description: `${levels} The options are checked against the driver's schema: 400 VALIDATION_ERROR naming each problem.`,
          params,
          body: SettingsInput,
          response: { 200: ProviderSettings, ...errors },
        },
      },
      async (request) =>
        putProviderSettings(tenantContextOf(request), request.params.channel, instanceOf(request.params), request.body),
    );
    app.delete(
      path,
      {
        config: needs('PROVIDER_MANAGE'),
        schema: {
          tags,
          summary: `Remove ${level} configuration of an outside service (200, empty): the next level applies`,
          params,
          response: { 200: EmptyBody, ...errors },
        },
      },
      async (request, reply) => {
        await deleteProviderSettings(tenantContextOf(request), request.params.channel, instanceOf(request.params));
        return reply.send();
      },
    );
  }
};

export default providerRoutes;
