import { randomBytes, randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { areas as allAreas } from './areas.ts';
import { type Config, settingsOf } from './config.ts';
import type { Database } from './db/database.ts';
import { citusCluster } from './db/distribution.ts';
import type { DB } from './db/schema.ts';
import type { BlobStore } from './files/blob-store.ts';
import { registerAccessControl } from './http/access-hook.ts';
import { registerAccessLog } from './http/access-log.ts';
import { registerBrowserSecurity } from './http/browser-security.ts';
import { registerConsole } from './http/console.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { registerMetrics } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { RequestLog, requestLogSerializers } from './http/request-log.ts';
import type { AccessTable } from './http/route-access.ts';
import { SchemaCompilation } from './http/schema-compilation.ts';
import { type Clock, Services } from './http/services.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan, registerAbsentBodies, validatorCompiler } from './http/validation.ts';
import { accessLogSettings } from './modules/access-log/index.ts';
import { type Area, type Catalogs, mergeAreas } from './platform/area.ts';
import type { Channel } from './providers/slot.ts';
import { ApiError, documentCommonErrors, handleError, sendError } from './wire/errors.ts';
import { isE164, isTimeZone, registerFormats } from './wire/formats.ts';

export interface AppOptions {
  config: Config;
  database: Database;
  /** Replaces the system clock (tests of expiry and local times). */
  clock?: Clock;
  /** Replaces the configured blob store. */
  blobs?: BlobStore;
  /** The areas to serve: all of them (src/areas.ts) unless a test adds one of its own. */
  areas?: readonly Area[];
  /** Replaces channels' drivers, as `blobs` replaces the store. */
  providers?: ReadonlyMap<Channel, unknown>;
}

export interface App {
  server: FastifyInstance;
  services: Services;
  /** The areas' permissions, error codes, audit actions and events, merged. */
  catalogs: Catalogs;
  /** Each route's access rule, as its area declared it. */
  accessTable: AccessTable;
  /** The routes' schemas, compiled on first use (`compileAll` for a test that checks them all). */
  schemas: SchemaCompilation;
}

/** Says at start-up which engine serves: PGlite, PostgreSQL, or a Citus coordinator and its workers. */
async function logDatabase(log: FastifyBaseLogger, database: Database): Promise<void> {
  if (database.kind !== 'citus') return log.info({ database: database.kind }, `database: ${database.kind}`);
  const cluster = await citusCluster(database.db);
  log.info(
    { database: 'citus', citus: cluster?.version, workers: cluster?.workers },
    `database: Citus ${cluster?.version} coordinator with ${cluster?.workers} workers; every tenant's statements run on one shard`,
  );
}

/** Builds the HTTP app on an open, migrated database. `listen()` is the caller's choice. */
export async function buildApp({ config, database, clock, blobs, providers, areas = allAreas }: AppOptions): Promise<App> {
  registerFormats();
  const { catalogs, declarations } = mergeAreas(areas);
  const secret = config.jwtSecret || (await sharedJwtSecret(database.db));

  const schemas = new SchemaCompilation();
  const app = Fastify({
    logger: { level: config.logLevel, serializers: requestLogSerializers },
    logController: new RequestLog(),
    bodyLimit: config.bodyLimitBytes,
    exposeHeadRoutes: false,
    return503OnClosing: true,
    // Cairn's own id on every request, never the caller's (http/request-id.ts).
    requestIdHeader: false,
    trustProxy: config.trustProxy,
    genReqId: () => randomUUID(),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // The serializer compiles schemas with its own Ajv, which must know Cairn's formats too.
    serializerOpts: { ajv: { formats: { e164: isE164, timezone: isTimeZone } } },
    schemaController: { compilersFactory: { buildSerializer: schemas.serializers() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  await logDatabase(app.log, database);
  const services = new Services({
    config,
    database,
    secret,
    declared: declarations,
    log: app.log,
    ...(clock ? { clock } : {}),
    ...(blobs ? { blobs } : {}),
    ...(providers ? { providers } : {}),
  });
  app.addHook('onClose', async () => {
    await services.caches.stop();
    await services.jobs.stop();
    services.providers.close();
  });

  app.setValidatorCompiler(schemas.validators(validatorCompiler));
  registerAbsentBodies(app);
  app.setErrorHandler(handleError);
  app.decorateRequest('errorFormat', null);
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new ApiError('ROUTE_NOT_FOUND', { method: request.method, path: request.url.split('?')[0] })),
  );

  // Clients send Content-Type: application/json on bodiless DELETEs too; an empty body is no body.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    jsonParser(request, body as string, (error, parsed) => {
      if (!error && nestsDeeperThan(parsed, MAX_JSON_DEPTH)) {
        return done(
          new ApiError('BAD_REQUEST', { maxDepth: MAX_JSON_DEPTH }, `The body nests deeper than ${MAX_JSON_DEPTH} levels`),
        );
      }
      done(error, parsed);
    });
  });

  // Multipart bodies are read by the upload routes as streams (files/upload.ts), never buffered.
  await app.register(multipart, { throwFileSizeLimit: true });

  await registerBrowserSecurity(app, config);
  app.addHook('onSend', async (request, reply) => {
    // DECISIONS §1: nothing this API returns may be cached.
    reply.header('cache-control', 'no-store');
    reply.header('x-request-id', request.id);
  });
  registerMetrics(app, services.jobs);
  documentCommonErrors(app);
  const accessTable: AccessTable = new Map();
  await registerOpenApi(app, catalogs, accessTable);
  registerAccessControl(app, services, accessTable);
  // Idempotency-Key first: its onSend may put a kept answer in place of the request's, and the
  // access log's onSend, after it, records the answer actually sent.
  registerIdempotency(app, services);
  if (settingsOf(config, accessLogSettings).enabled) registerAccessLog(app, services);
  else app.log.warn('access log: off (CAIRN_ACCESS_LOG=false): reads of patient data are not recorded');
  registerConsole(app, config.consoleDir);
  const options = { services, exports: declarations.exports, fhir: declarations.fhir };
  for (const area of areas) if (area.routes) await app.register(area.routes, options);
  return { server: app, services, catalogs, accessTable, schemas };
}

/**
 * The token signing key when CAIRN_JWT_SECRET is unset: made once and kept in the database,
 * so every worker and node signs and checks with the same key.
 */
async function sharedJwtSecret(db: Kysely<DB>): Promise<string> {
  // Read first: on Citus writing a reference table needs every worker, and a node starts while one is down.
  const kept = await db.selectFrom('server_settings').select('value').where('name', '=', 'jwt_secret').executeTakeFirst();
  if (kept) return kept.value;
  await db
    .insertInto('server_settings')
    .values({ name: 'jwt_secret', value: randomBytes(48).toString('base64url') })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('server_settings').select('value').where('name', '=', 'jwt_secret').executeTakeFirstOrThrow();
  return row.value;
}
