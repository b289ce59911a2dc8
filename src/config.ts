import path from 'node:path';
import { type Static, type TObject, Type } from 'typebox';
import { Value } from 'typebox/value';

/**
 * The platform's own settings (server, database, security), with their defaults. Areas and the
 * shared mechanisms declare theirs beside their code (`settingsSection`); the app validates every
 * section at start-up, and the README's configuration table is written from the same
 * declarations (`npm run docs`), so keep descriptions short.
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
  CAIRN_CONSOLE_DIR: Type.String({
    default: '',
    description: 'The built operator console served at /console (unset: console/dist, built by `npm ci`).',
  }),
  CAIRN_WORKER_HEAP_MB: Type.Integer({
    minimum: 64,
    default: 256,
    description:
      'V8 old-space limit of each serving process (`serve`, and each of `serve --workers`), with an 8 MB young generation; bounds its memory.',
  }),
  CAIRN_WORKER_HEAP_FLOOR_MB: Type.Integer({
    minimum: 0,
    default: 96,
    description:
      'Old space a serving process fills before V8 collects it whole (its --initial-old-space-size), below CAIRN_WORKER_HEAP_MB; 0 leaves it to V8, which collects at ~1.4× the live objects and so marks the heap over and over while files stream. At 96, uploads ran at 0.86-0.96 of a bare Node server’s (0.59 at 0) for ~25 MB more peak memory per process under reads.',
  }),
  CAIRN_SCRYPT_CONCURRENCY: Type.Integer({
    minimum: 0,
    maximum: 64,
    default: 0,
    description:
      'Password and secret hashes (scrypt: 32 MiB and ~60 ms of CPU each) a serving process computes at once; more wait their turn, so a burst of sign-ins keeps within the memory budget and leaves libuv threads to file reads. 0: the machine’s cores shared among the serving processes (`--workers`), 1 or 2 each.',
  }),
  CAIRN_CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    default: 60_000,
    description:
      "How long a node trusts its cached tenants, instances and permissions when it hears no change: a change clears every serving process's at once (a notification), so this is only the net under one lost.",
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
    {
      default: 'info',
      description:
        'pino log level. At `info` each request is one line: its id, method, route pattern (never its URL), status and time.',
    },
  ),
});

type Env = Static<typeof EnvSchema>;

/**
 * A section of the configuration: some environment variables (each with its default and a short
 * description, in a TypeBox object), and how they become the values the code uses. An area lists
 * its section on its `Area`; code reads it with `settingsOf(config, section)`.
 */
export interface SettingsSection<T = unknown> {
  /** Who declares it: the README groups its table by this. */
  owner: string;
  schema: TObject;
  /** Turns the checked variables into values (the platform's are at hand); throws ConfigError for rules across variables. */
  read(values: Record<string, unknown>, platform: PlatformConfig): T;
}

export function settingsSection<S extends TObject, T>(
  owner: string,
  schema: S,
  read: (values: Static<S>, platform: PlatformConfig) => T,
): SettingsSection<T> {
  return { owner, schema, read: (values, platform) => read(values as Static<S>, platform) };
}

export class ConfigError extends Error {}

/** The environment's values for a section: converted, defaulted and checked, every problem named. */
function readSection<T>(
  section: SettingsSection<T>,
  env: Readonly<Record<string, string | undefined>>,
  platform: PlatformConfig,
): T {
  const { schema } = section;
  const known = Object.fromEntries(
    Object.keys(schema.properties)
      .filter((key) => env[key] !== undefined && env[key] !== '')
      .map((key) => [key, env[key]]),
  );
  const withDefaults = Value.Default(schema, Value.Convert(schema, known));
  if (!Value.Check(schema, withDefaults)) {
    const problems = [...Value.Errors(schema, withDefaults)].map(
      (error) => `${error.instancePath.slice(1) || 'environment'}: ${error.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return section.read(withDefaults as Record<string, unknown>, platform);
}

/** A rule across variables, named the way a schema problem is. */
export function invalid(message: string): never {
  throw new ConfigError(`Invalid configuration:\n  ${message}`);
}

export interface PlatformConfig {
  port: number;
  host: string;
  /** Empty: embedded PGlite. */
  databaseUrl: string;
  databasePoolSize: number;
  databaseWaitSeconds: number;
  dataDir: string;
  demo: { enabled: boolean; clientKey: string; secret: string };
  jwtSecret: string;
  /** Fastify's trustProxy: which proxies' forwarded headers give the client's address and scheme. */
  trustProxy: boolean | string[];
  hsts: boolean;
  bodyLimitBytes: number;
  corsOrigins: string[] | '*';
  cacheTtlMs: number;
  scryptConcurrency: number;
  /** The built console's directory; undefined: console/dist. */
  consoleDir: string | undefined;
  workerHeapMb: number;
  /** V8's --initial-old-space-size for each serving process; 0 leaves it to V8 (cli/heap.ts). */
  workerHeapFloorMb: number;
  logLevel: Env['LOG_LEVEL'];
}

export interface Config extends PlatformConfig {
  /** The environment the configuration was read from: sections read their variables from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Each section's values, read once (at start-up for the sections loadConfig was given). */
  readonly sections: Map<SettingsSection, unknown>;
}

const platformSettings = settingsSection('platform', EnvSchema, (e): PlatformConfig => {
  if (e.CAIRN_JWT_SECRET && e.CAIRN_JWT_SECRET.length < 32) invalid('CAIRN_JWT_SECRET: must be at least 32 characters');
  if (Boolean(e.CAIRN_DEMO_CLIENT) !== Boolean(e.CAIRN_DEMO_SECRET))
    invalid('CAIRN_DEMO_CLIENT and CAIRN_DEMO_SECRET go together');
  if (e.CAIRN_WORKER_HEAP_FLOOR_MB >= e.CAIRN_WORKER_HEAP_MB)
    invalid('CAIRN_WORKER_HEAP_FLOOR_MB: must be below CAIRN_WORKER_HEAP_MB');
  const dataDir = path.resolve(e.CAIRN_DATA_DIR);
  const origins = e.CAIRN_CORS_ORIGINS.trim();
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseWaitSeconds: e.DATABASE_WAIT_SECONDS,
    dataDir,
    demo: { enabled: e.CAIRN_DEMO, clientKey: e.CAIRN_DEMO_CLIENT, secret: e.CAIRN_DEMO_SECRET },
    jwtSecret: e.CAIRN_JWT_SECRET,
    trustProxy: parseTrustProxy(e.CAIRN_TRUST_PROXY),
    hsts: e.CAIRN_HSTS,
    bodyLimitBytes: e.CAIRN_BODY_LIMIT_BYTES,
    corsOrigins: origins === '*' ? ('*' as const) : origins.split(',').map((origin) => origin.trim()),
    cacheTtlMs: e.CAIRN_CACHE_TTL_MS,
    scryptConcurrency: e.CAIRN_SCRYPT_CONCURRENCY,
    consoleDir: e.CAIRN_CONSOLE_DIR ? path.resolve(e.CAIRN_CONSOLE_DIR) : undefined,
    workerHeapMb: e.CAIRN_WORKER_HEAP_MB,
    workerHeapFloorMb: e.CAIRN_WORKER_HEAP_FLOOR_MB,
    logLevel: e.LOG_LEVEL,
  };
});

/**
 * Reads and validates the environment: the platform's settings and every section given (the
 * areas' and mechanisms', which the CLI passes so a bad value stops start-up with a readable
 * message). A section not given is read on first use.
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  sections: readonly SettingsSection[] = [],
): Config {
  const snapshot = { ...env };
  const config: Config = { ...readSection(platformSettings, snapshot, {} as PlatformConfig), env: snapshot, sections: new Map() };
  for (const section of sections) config.sections.set(section, readSection(section, snapshot, config));
  return config;
}

/** A section's values (typed by its declaration). */
export function settingsOf<T>(config: Config, section: SettingsSection<T>): T {
  if (!config.sections.has(section)) config.sections.set(section, readSection(section, config.env, config));
  return config.sections.get(section) as T;
}

/** Every variable of the platform and of the sections given, for the README and `cairn --help`. */
export function settingsDocumentation(sections: readonly SettingsSection[]) {
  const rows = [platformSettings, ...sections].flatMap((section) =>
    Object.entries(section.schema.properties).map(([name, schema]) => ({
      owner: section.owner,
      name,
      default: String((schema as { default?: unknown }).default ?? ''),
      description: String((schema as { description?: string }).description ?? ''),
    })),
  );
  // Sections may share variables (the SMS and voice slots read one Twilio account): each is listed once.
  return rows.filter((row, index) => rows.findIndex((other) => other.name === row.name) === index);
}

function parseTrustProxy(value: string): Config['trustProxy'] {
  const text = value.trim();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  return text.split(',').map((entry) => entry.trim());
}
