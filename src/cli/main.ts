/** The `cairn` command itself (src/cli.ts starts it): its usage, and each command. */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { areas } from '../areas.ts';
import { loadConfig, settingsDocumentation, settingsOf } from '../config.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { APPEND_ONLY, grantServing } from '../db/roles.ts';
import { systemContext } from '../http/context.ts';
import { accessLogSettings, verifyChain } from '../modules/access-log/index.ts';
import { applyFormation } from '../modules/formation/index.ts';
import { injectInbound, sandboxOutbox, settleSandboxMessage } from '../modules/sandbox/index.ts';
import { saveUser, setPassword } from '../modules/users/index.ts';
import { mergeAreas, settingsSections } from '../platform/area.ts';
import { type ChannelName, channelNames, type SandboxOutcome } from '../providers/channels.ts';
import { createApiClient, createInstance, createTenant } from '../tenancy/store.ts';
import { findInstanceByName, findTenantByName } from '../tenancy/tenancy.ts';
import { ApiError } from '../wire/errors.ts';
import { cliServices, ensureDemoTenant, openMigrated } from './bootstrap.ts';
import { DEMO_PASSWORD, seedDemo } from './demo-seed.ts';
import { runOperatingCommand } from './operating/commands.ts';
import { seedBulk } from './seed-bulk.ts';
import { serve } from './serve.ts';

const usage = `cairn — the Cairn care-management API server

Usage:
  cairn serve [--workers N]                     Start the HTTP server (N processes; needs DATABASE_URL for N > 1)
  cairn migrate                                 Bring the database schema up to date
  cairn tenant create <name> [--title T]        Create a tenant
  cairn instance create <tenant> <name> [--description D]
  cairn client create <tenant> --name N --role <instance>:<role> [--role ...] [--key K] [--secret S]
                                                Create an API client; prints its key and secret once
  cairn formation apply <tenant>/<instance> <file.json>
                                                Set the draft formation and publish it
  cairn user create <tenant> --username U --email E [--first-name F] [--last-name L]
                    [--role <instance>:<role> ...] [--password P]
  cairn sandbox outbox <tenant>/<instance> [--channel C] [--status S]
                                                What the instance's sandbox was given to send (JSON lines)
  cairn sandbox deliver|bounce|fail <tenant>/<instance> <messageId> [--error E]
                                                Tell the sandbox what became of a message
  cairn sandbox inbound <tenant>/<instance> --channel EMAIL|SMS|VOICE_CALL|FAX --from F --to T
                        [--subject S] [--message M] [--recorded]
                                                Make a message come in through the sandbox
  cairn database grant <role>                   As the tables' owner: let <role> serve (every table, but the access
                                                log's: SELECT and INSERT only); serve with it (docs/operating.md)
  cairn access-log verify <tenant> [--hash H] [--retention-days N]
                                                Check the tenant's access log against its hash chain; names the
                                                first broken link (exit 1) or prints the newest seal's hash;
                                                H, a hash published earlier (ACCESS_LOG_SEALED), must be in it;
                                                N, the shortest retention ever in force (default: today's)
  cairn backup <file> [--files-only]            A consistent backup (database and files) while the server serves
  cairn restore <file> [--data-dir D]           Restore into an empty installation (D, or DATABASE_URL) and verify it
  cairn copy --to postgres://… [--files-to s3://bucket?region=R&endpoint=E&forcePathStyle=true]
                                                Copy a stopped installation to PostgreSQL or Citus (and S3);
                                                resumable, verified
  cairn seed demo                               Demo tenant plus sample users and patients
  cairn seed bulk --tenant T [--instance sandbox] --patients N [--tasks M] [--events E] [--users U] [--batch 10000]
                  [--keep-indexes]              Scale data: coordinators, patients with care teams and programs, tasks,
                                                calendar events over two years (one in five an encounter)

Environment:
${settingsDocumentation(settingsSections(areas))
  .map((entry) => `  ${entry.name.padEnd(28)} ${entry.description}${entry.default ? ` (default ${entry.default})` : ''}`)
  .join('\n')}
`;

type Options = Record<string, string | boolean | string[] | undefined>;

function fail(message: string): never {
  throw new UsageError(message);
}
class UsageError extends Error {}

function text(options: Options, name: string, required = true): string {
  const value = options[name];
  if (typeof value === 'string' && value !== '') return value;
  if (required) fail(`--${name} is required`);
  return '';
}

/** `<instance>:<role>` pairs given with --role. */
function rolesOf(options: Options): { instanceName: string; role: string }[] {
  return ((options.role as string[] | undefined) ?? []).map((pair) => {
    const [instanceName, role] = pair.split(':');
    if (!instanceName || !role) fail(`--role takes <instance>:<role>, not "${pair}"`);
    return { instanceName, role };
  });
}

async function main(argv: string[]): Promise<void> {
  // Commands write records and audit rows as the routes do: the areas' catalogs must be known.
  mergeAreas(areas);
  const { values: options, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      workers: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string', multiple: true },
      key: { type: 'string' },
      secret: { type: 'string' },
      username: { type: 'string' },
      email: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      password: { type: 'string' },
      tenant: { type: 'string' },
      instance: { type: 'string' },
      patients: { type: 'string' },
      tasks: { type: 'string' },
      events: { type: 'string' },
      users: { type: 'string' },
      batch: { type: 'string' },
      'keep-indexes': { type: 'boolean' },
      channel: { type: 'string' },
      status: { type: 'string' },
      error: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      subject: { type: 'string' },
      message: { type: 'string' },
      recorded: { type: 'boolean' },
      'files-only': { type: 'boolean' },
      hash: { type: 'string' },
      'retention-days': { type: 'string' },
      'data-dir': { type: 'string' },
      'files-to': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, sub, ...rest] = positionals;
  if (!command || options.help) {
    process.stdout.write(usage);
    return;
  }
  const config = loadConfig(process.env, settingsSections(areas));
  if (command === 'serve') {
    const workers = Number(options.workers ?? 1);
    if (!Number.isInteger(workers) || workers < 1) fail('--workers takes a positive whole number');
    await serve(config, workers);
    return;
  }
  const operatingOptions = {
    filesOnly: options['files-only'] === true,
    dataDir: options['data-dir'],
    to: options.to,
    filesTo: options['files-to'],
  };
  if (await runOperatingCommand(command, positionals.slice(1), operatingOptions, config, settingsSections(areas), fail)) return;

  const database = await openMigrated(config);
  const services = cliServices(config, database);
  const db = database.db;
  const tenantNamed = async (name: string | undefined) => {
    const tenant = name ? await findTenantByName(db, name) : undefined;
    return tenant ?? fail(`No tenant "${name ?? ''}"`);
  };
  /** `<tenant>/<instance>`, as a system context in that instance. */
  const instanceContext = async (path: string | undefined) => {
    const [tenantName, instanceName] = (path ?? '').split('/');
    const tenant = await tenantNamed(tenantName);
    const instance = (await findInstanceByName(db, tenant.id, instanceName ?? '')) ?? fail(`No instance "${instanceName ?? ''}"`);
    return systemContext(services, tenant, instance);
  };
  try {
    switch (`${command} ${sub ?? ''}`.trim()) {
      case 'migrate': {
        const applied = await migrateToLatest(db);
        console.log(applied.length ? `Applied ${applied.join(', ')}` : 'The schema is up to date');
        break;
      }
      case 'database grant': {
        if (database.kind === 'pglite') fail('the embedded database has no roles: grant on PostgreSQL or Citus (DATABASE_URL)');
        const tables = await grantServing(db, rest[0] ?? fail('which role? cairn database grant <role>'));
        console.log(
          `Granted ${rest[0]} what serving needs on ${tables.length} tables; on ${APPEND_ONLY.join(' and ')} only SELECT and INSERT`,
        );
        break;
      }
      case 'tenant create': {
        const tenant = await createTenant(
          services,
          rest[0] ?? fail('tenant create <name>'),
          text(options, 'title', false) || undefined,
        );
        console.log(`Created tenant ${tenant.name} (${tenant.id})`);
        break;
      }
      case 'instance create': {
        const tenant = await tenantNamed(rest[0]);
        const instance = await createInstance(
          services,
          tenant,
          rest[1] ?? fail('instance create <tenant> <name>'),
          text(options, 'description', false) || null,
        );
        console.log(`Created instance ${tenant.name}/${instance.name} (${instance.id})`);
        break;
      }
      case 'client create': {
        const tenant = await tenantNamed(rest[0]);
        const roles = [];
        for (const { instanceName, role } of rolesOf(options)) {
          const instance = (await findInstanceByName(db, tenant.id, instanceName)) ?? fail(`No instance "${instanceName}"`);
          roles.push({ instanceId: instance.id, role });
        }
        const client = await createApiClient(services, tenant, {
          name: text(options, 'name'),
          roles,
          clientKey: text(options, 'key', false),
          secret: text(options, 'secret', false),
        });
        console.log(
          `Created API client ${client.name}. The secret is shown only now:\n  key:    ${client.clientKey}\n  secret: ${client.secret}`,
        );
        break;
      }
      case 'formation apply': {
        const [tenantName, instanceName] = (rest[0] ?? '').split('/');
        const tenant = await tenantNamed(tenantName);
        const instance =
          (await findInstanceByName(db, tenant.id, instanceName ?? '')) ?? fail(`No instance "${instanceName ?? ''}"`);
        const file = rest[1] ?? fail('formation apply <tenant>/<instance> <file>');
        const published = await applyFormation(
          systemContext(services, tenant, instance),
          JSON.parse(fs.readFileSync(file, 'utf8')),
        );
        console.log(`Published formation version ${published.version} of ${tenant.name}/${instance.name}`);
        break;
      }
      case 'user create': {
        const tenant = await tenantNamed(rest[0]);
        const ctx = systemContext(services, tenant);
        const user = await saveUser(ctx, {
          username: text(options, 'username'),
          email: text(options, 'email'),
          firstName: text(options, 'first-name', false) || null,
          lastName: text(options, 'last-name', false) || null,
          roles: rolesOf(options).map(({ instanceName, role }) => ({ permissionName: role, instanceName, primaryRole: true })),
        });
        const password = text(options, 'password', false);
        if (password) await setPassword(ctx, user.id, 'ID', password);
        console.log(`Created user ${user.username} (${user.id})${password ? ' with a password' : ''}`);
        break;
      }
      case 'sandbox outbox': {
        const ctx = await instanceContext(rest[0]);
        const channel = text(options, 'channel', false) || undefined;
        if (channel && !(channelNames as readonly string[]).includes(channel))
          fail(`--channel: one of ${channelNames.join(', ')}`);
        const { content } = await sandboxOutbox(
          ctx,
          { channel: channel as ChannelName | undefined, status: text(options, 'status', false) || undefined },
          { page: 0, size: 1000 },
        );
        for (const message of content) console.log(JSON.stringify(message));
        break;
      }
      case 'sandbox deliver':
      case 'sandbox bounce':
      case 'sandbox fail': {
        const ctx = await instanceContext(rest[0]);
        const messageId = rest[1] ?? fail(`sandbox ${sub} <tenant>/<instance> <messageId>`);
        const settled = await settleSandboxMessage(
          ctx,
          messageId,
          sub as SandboxOutcome,
          text(options, 'error', false) || undefined,
        );
        console.log(JSON.stringify(settled));
        break;
      }
      case 'sandbox inbound': {
        const ctx = await instanceContext(rest[0]);
        const channel = text(options, 'channel');
        if (!(channelNames as readonly string[]).includes(channel)) fail(`--channel: one of ${channelNames.join(', ')}`);
        const received = await injectInbound(ctx, {
          channel: channel as ChannelName,
          from: text(options, 'from'),
          to: text(options, 'to'),
          ...(text(options, 'subject', false) ? { subject: text(options, 'subject') } : {}),
          ...(text(options, 'message', false) ? { message: text(options, 'message') } : {}),
          recorded: options.recorded === true,
        });
        console.log(JSON.stringify(received));
        break;
      }
      case 'access-log verify': {
        const tenant = await tenantNamed(rest[0]);
        const publishedHash = text(options, 'hash', false);
        if (publishedHash && !/^[0-9a-f]{64}$/.test(publishedHash)) fail('--hash takes a seal hash: 64 hexadecimal digits');
        // The shortest retention the installation has run with: a removal made under it is valid
        // after the retention was raised; by default the one in force.
        const retention = text(options, 'retention-days', false);
        if (retention && !/^[1-9][0-9]{0,5}$/.test(retention)) fail('--retention-days takes a number of days');
        const report = await verifyChain(db, tenant.id, {
          now: services.clock.now(),
          retentionDays: retention ? Number(retention) : settingsOf(config, accessLogSettings).retentionDays,
          publishedHash: publishedHash || undefined,
        });
        const reach = `${report.seals} seals, ${report.records} records sealed, ${report.unsealed} not sealed yet, ${report.removals} retention removals${publishedHash ? ', the published hash found' : ''}`;
        if (report.broken) {
          console.log(`The access log of ${tenant.name} is BROKEN at seal ${report.broken.seq}: ${report.broken.reason}`);
          process.exitCode = 1;
        } else console.log(`The access log of ${tenant.name} is intact: ${reach}; newest seal hash ${report.head}`);
        break;
      }
      case 'seed demo': {
        const demo = await ensureDemoTenant(config, database);
        if (demo.created) console.log(`Created the demo tenant; API client key ${demo.clientKey}, secret ${demo.secret}`);
        const users = await seedDemo(services);
        console.log(`Seeded 40 patients and users ${users.join(', ')} (password "${DEMO_PASSWORD}")`);
        break;
      }
      case 'seed bulk': {
        const count = (name: string, fallback: number) => {
          const value = Number((options as Options)[name] ?? fallback);
          if (!Number.isInteger(value) || value < 0) fail(`--${name} takes a whole number`);
          return value;
        };
        const result = await seedBulk(services, {
          tenant: text(options, 'tenant'),
          instance: text(options, 'instance', false) || 'sandbox',
          patients: count('patients', 0),
          tasks: count('tasks', 0),
          events: count('events', 0),
          ...(options.users === undefined ? {} : { users: count('users', 0) }),
          batchSize: Math.max(1, count('batch', 10_000)),
          keepIndexes: options['keep-indexes'] === true,
        });
        const total = Object.values(result.rows).reduce((sum, rows) => sum + rows, 0);
        console.log(
          `Loaded ${Object.entries(result.rows)
            .map(([kind, rows]) => `${rows} ${kind}`)
            .join(', ')} into ` +
            `${result.tenant.name}/${result.instance.name} in ${result.seconds.toFixed(1)} s (${Math.round(total / result.seconds)} rows/s)`,
        );
        break;
      }
      default:
        fail(`Unknown command "${positionals.join(' ')}"\n\n${usage}`);
    }
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ApiError) {
    const problems = (error.details.errors as { path: string; message: string }[] | undefined) ?? [];
    console.error(
      `${error.message}${problems.length ? `\n  ${problems.map((p) => `${p.path}: ${p.message}`).join('\n  ')}` : ''}`,
    );
  } else {
    console.error(error instanceof Error ? error.message : error);
  }
  // Exit now: a worker's cluster channel would otherwise keep a process that failed to start
  // alive, never listening and never replaced.
  process.exit(1);
});
