import path from 'node:path';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';

/**
 * Every setting Cairn reads from the environment, with its default. The README's
 * configuration table is generated from the same descriptions, so keep them short.
 */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'HTTP port.' }),
  HOST: Type.String({ default: '127.0.0.1', description: 'Interface to listen on (0.0.0.0 in containers).' }),
  DATABASE_URL: Type.String({
    default: '',
    description: 'PostgreSQL connection string. Unset: the embedded PGlite database under CAIRN_DATA_DIR.',
  }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10, description: 'Connections per process.' }),
  DATABASE_WAIT_SECONDS: Type.Integer({
    minimum: 0,
    default: 60,
    description: 'How long start-up waits for an unreachable PostgreSQL (retrying with backoff) before giving up.',
  }),
  CAIRN_DATA_DIR: Type.String({ default: './data', description: 'Where PGlite and local files live.' }),
  CAIRN_FILE_STORE: Type.Union([Type.Literal('local'), Type.Literal('s3')], {
    default: 'local',
    description: 'Where file bytes live: local (CAIRN_DATA_DIR/files) or s3 (the CAIRN_S3_* settings).',
  }),
  CAIRN_S3_BUCKET: Type.String({ default: '', description: 'S3 bucket for files (CAIRN_FILE_STORE=s3).' }),
  CAIRN_S3_REGION: Type.String({ default: 'us-east-1', description: 'S3 region.' }),
  CAIRN_S3_ENDPOINT: Type.String({
    default: '',
    description: 'An S3-compatible server (MinIO, R2, Ceph), e.g. http://127.0.0.1:9000. Unset: AWS.',
  }),
  CAIRN_S3_ACCESS_KEY_ID: Type.String({
    default: '',
    description: "S3 access key. Unset: the AWS SDK's own chain (environment, role).",
  }),
  CAIRN_S3_SECRET_ACCESS_KEY: Type.String({ default: '', description: 'S3 secret key, with CAIRN_S3_ACCESS_KEY_ID.' }),
  CAIRN_S3_FORCE_PATH_STYLE: Type.Boolean({
    default: false,
    description: 'Address the bucket in the path rather than the host name (most S3-compatible servers need it).',
  }),
  CAIRN_DEMO: Type.Boolean({
    default: true,
    description: 'Create the demo tenant (demo/sandbox) and its API client on first start.',
  }),
  CAIRN_DEMO_CLIENT: Type.String({ default: '', description: "Fixes the demo API client's key on first start." }),
  CAIRN_DEMO_SECRET: Type.String({ default: '', description: "Fixes the demo API client's secret on first start." }),
  CAIRN_JWT_SECRET: Type.String({
    default: '',
    description: 'HMAC key for tokens (32+ chars). Unset: a key generated once and kept in the database.',
  }),
  CAIRN_TOKEN_LIMIT: Type.Integer({ minimum: 1, default: 100, description: 'Token requests allowed per window.' }),
  CAIRN_TOKEN_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 300, description: 'Token limit window.' }),
  CAIRN_TOKEN_BLOCK_SECONDS: Type.Integer({ minimum: 1, default: 300, description: 'Block after the limit.' }),
  CAIRN_TOKEN_FAILURE_LIMIT: Type.Integer({
    minimum: 1,
    default: 10,
    description: 'Wrong secrets allowed per caller and source address per window; more block that address for that caller.',
  }),
  CAIRN_TRUST_PROXY: Type.String({
    default: '',
    description: 'Proxies whose X-Forwarded-For/-Proto to trust: true (any), or comma-separated addresses/CIDRs. Unset: none.',
  }),
  CAIRN_HSTS: Type.Boolean({
    default: false,
    description: 'Send Strict-Transport-Security (set it when clients reach Cairn over TLS, e.g. behind a proxy).',
  }),
  CAIRN_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1_048_576, description: 'Largest JSON body.' }),
  CAIRN_CORS_ORIGINS: Type.String({
    default: '*',
    description: 'Comma-separated allowed CORS origins; * allows any.',
  }),
  CAIRN_WORKER_HEAP_MB: Type.Integer({
    minimum: 64,
    default: 256,
    description: 'V8 old-space limit of each `serve --workers` process; bounds its memory.',
  }),
  CAIRN_CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    default: 5000,
    description: 'How long a node trusts its cached tenants, formations and permissions.',
  }),
  LOG_LEVEL: Type.Union(
    [
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('trace'),
      Type.Literal('silent'),
    ],
    { default: 'info', description: 'pino log level.' },
  ),
});

export type Env = Static<typeof EnvSchema>;

export type FileStoreSettings =
  | { driver: 'local'; root: string }
  | {
      driver: 's3';
      bucket: string;
      region: string;
      endpoint: string;
      accessKeyId: string;
      secretAccessKey: string;
      forcePathStyle: boolean;
    };

export interface Config {
  port: number;
  host: string;
  /** Empty: embedded PGlite. */
  databaseUrl: string;
  databasePoolSize: number;
  databaseWaitSeconds: number;
  dataDir: string;
  files: FileStoreSettings;
  demo: { enabled: boolean; clientKey: string; secret: string };
  jwtSecret: string;
  tokenLimit: { max: number; failures: number; windowSeconds: number; blockSeconds: number };
  /** Fastify's trustProxy: which proxies' forwarded headers give the client's address and scheme. */
  trustProxy: boolean | string[];
  hsts: boolean;
  bodyLimitBytes: number;
  corsOrigins: string[] | '*';
  cacheTtlMs: number;
  workerHeapMb: number;
  logLevel: Env['LOG_LEVEL'];
}

export const envDocumentation = Object.entries(EnvSchema.properties).map(([name, schema]) => ({
  name,
  default: String((schema as { default?: unknown }).default ?? ''),
  description: String((schema as { description?: string }).description ?? ''),
}));

export class ConfigError extends Error {}

/** Reads and validates the environment; a bad value stops start-up with a readable message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.fromEntries(
    Object.keys(EnvSchema.properties)
      .filter((key) => env[key] !== undefined && env[key] !== '')
      .map((key) => [key, env[key]]),
  );
  const withDefaults = Value.Default(EnvSchema, Value.Convert(EnvSchema, known));
  if (!Value.Check(EnvSchema, withDefaults)) {
    const problems = [...Value.Errors(EnvSchema, withDefaults)].map(
      (error) => `${error.instancePath.slice(1) || 'environment'}: ${error.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const e = withDefaults as Env;
  if (e.CAIRN_JWT_SECRET && e.CAIRN_JWT_SECRET.length < 32) {
    throw new ConfigError('Invalid configuration:\n  CAIRN_JWT_SECRET: must be at least 32 characters');
  }
  if (Boolean(e.CAIRN_DEMO_CLIENT) !== Boolean(e.CAIRN_DEMO_SECRET)) {
    throw new ConfigError('Invalid configuration:\n  CAIRN_DEMO_CLIENT and CAIRN_DEMO_SECRET go together');
  }
  if (e.CAIRN_FILE_STORE === 's3' && !e.CAIRN_S3_BUCKET) {
    throw new ConfigError('Invalid configuration:\n  CAIRN_S3_BUCKET: required when CAIRN_FILE_STORE is s3');
  }
  if (Boolean(e.CAIRN_S3_ACCESS_KEY_ID) !== Boolean(e.CAIRN_S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError('Invalid configuration:\n  CAIRN_S3_ACCESS_KEY_ID and CAIRN_S3_SECRET_ACCESS_KEY go together');
  }
  const dataDir = path.resolve(e.CAIRN_DATA_DIR);
  const origins = e.CAIRN_CORS_ORIGINS.trim();
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseWaitSeconds: e.DATABASE_WAIT_SECONDS,
    dataDir,
    files:
      e.CAIRN_FILE_STORE === 's3'
        ? {
            driver: 's3',
            bucket: e.CAIRN_S3_BUCKET,
            region: e.CAIRN_S3_REGION,
            endpoint: e.CAIRN_S3_ENDPOINT,
            accessKeyId: e.CAIRN_S3_ACCESS_KEY_ID,
            secretAccessKey: e.CAIRN_S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.CAIRN_S3_FORCE_PATH_STYLE,
          }
        : { driver: 'local', root: path.join(dataDir, 'files') },
    demo: { enabled: e.CAIRN_DEMO, clientKey: e.CAIRN_DEMO_CLIENT, secret: e.CAIRN_DEMO_SECRET },
    jwtSecret: e.CAIRN_JWT_SECRET,
    tokenLimit: {
      max: e.CAIRN_TOKEN_LIMIT,
      failures: e.CAIRN_TOKEN_FAILURE_LIMIT,
      windowSeconds: e.CAIRN_TOKEN_WINDOW_SECONDS,
      blockSeconds: e.CAIRN_TOKEN_BLOCK_SECONDS,
    },
    trustProxy: parseTrustProxy(e.CAIRN_TRUST_PROXY),
    hsts: e.CAIRN_HSTS,
    bodyLimitBytes: e.CAIRN_BODY_LIMIT_BYTES,
    corsOrigins: origins === '*' ? '*' : origins.split(',').map((origin) => origin.trim()),
    cacheTtlMs: e.CAIRN_CACHE_TTL_MS,
    workerHeapMb: e.CAIRN_WORKER_HEAP_MB,
    logLevel: e.LOG_LEVEL,
  };
}

function parseTrustProxy(value: string): Config['trustProxy'] {
  const text = value.trim();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  return text.split(',').map((entry) => entry.trim());
}
