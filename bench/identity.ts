/**
 * `npm run bench:identity [-- --quick]` (and the end of `npm run bench`): what an app's sign-in
 * costs on Cairn against the bare library it is built on, in one run.
 *
 * Cairn from the build (`cairn serve`, one process, job workers off) on a PostgreSQL of its own,
 * and beside it the bare baseline (bench/identity-baseline.ts: oidc-provider with its records in
 * memory, the same pages' forms, the same scrypt password check). Each takes turns, one flow at a
 * time (latency, not throughput: a person signs in once), with openid-client as the app:
 * - the authorize round trip: the app's URL, the sign-in page, the password, the consent page,
 *   the answer, back to the app with a code (seven requests);
 * - token issue: the code traded for tokens (with PKCE);
 * - refresh: a refresh token traded for the next (each rotates: a chain);
 * and, Cairn's alone, `POST /auth/token` with a password and with an API client's secret.
 * Medians and p95 in ms, and Cairn ÷ bare (of the medians).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as oidc from 'openid-client';
import { Browser, postAction } from '../src/test/browser.ts';
import { type Cluster, freePort, startCluster } from '../src/test/postgres-cluster.ts';
import { benchClient, cli, log, median, percentile, quick, root, standalone, token, tunedPostgres, waitFor } from './common.ts';

const FLOWS = quick ? 20 : 100;
const WARM_UP = 5;
const REDIRECT = 'http://localhost:5173/callback';
const PASSWORD = 'bench correct horse battery';
const TENANT = 'identity-bench';
const CLIENT_KEY = 'identity-bench';
const CLIENT_SECRET = 'identity-bench-secret-0123';
const USERNAME = 'bench-nurse';
/** The bare baseline's one app. */
const BASELINE_CLIENT = 'bench-app';
const children: ChildProcess[] = [];

interface Side {
  name: 'cairn' | 'bare';
  /** Where the app finds the server: the FHIR base for Cairn, the issuer for the bare one. */
  issuer: string;
  clientId: string;
  username: string;
}

interface Timings {
  authorize: number[];
  issue: number[];
  refresh: number[];
}

function startChild(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

/** One sign-in, timed: the round trip to the code, then the code traded, then one refresh. */
async function flow(side: Side, config: oidc.Configuration, into: Timings, previous?: string): Promise<string> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid fhirUser offline_access user/Patient.rs',
    prompt: 'consent',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    aud: side.issuer,
  });
  const browser = new Browser(side.issuer);
  const began = performance.now();
  const start = await browser.request(url.href);
  const signInPage = await browser.request(start.location ?? '');
  const signedIn = await browser.request(postAction(signInPage.text), { form: { username: side.username, password: PASSWORD } });
  const resumed = await browser.request(signedIn.location ?? '');
  const consentPage = await browser.request(resumed.location ?? '');
  const consented = await browser.request(postAction(consentPage.text), {
    form: { decision: 'allow', scope: ['fhirUser', 'offline_access', 'user/Patient.rs'] },
  });
  const back = await browser.request(consented.location ?? '');
  into.authorize.push(performance.now() - began);
  if (!back.location?.startsWith(REDIRECT)) throw new Error(`${side.name}: the flow did not end at the app (${back.status})`);
  const issuing = performance.now();
  const tokens = await oidc.authorizationCodeGrant(config, new URL(back.location), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  into.issue.push(performance.now() - issuing);
  const refreshing = performance.now();
  const refreshed = await oidc.refreshTokenGrant(config, previous ?? tokens.refresh_token ?? '');
  into.refresh.push(performance.now() - refreshing);
  return refreshed.refresh_token ?? tokens.refresh_token ?? '';
}

async function cairnSide(cluster: Cluster, dataDir: string): Promise<{ side: Side; base: string }> {
  const url = cluster.url('postgres');
  const env = { ...process.env, DATABASE_URL: url, CAIRN_DEMO: 'false', LOG_LEVEL: 'warn' };
  cli(['migrate'], env);
  cli(['seed', 'bulk', '--tenant', TENANT, '--patients', '1000', '--tasks', '0', '--events', '0'], env);
  cli(benchClient(TENANT, CLIENT_KEY, CLIENT_SECRET), env);
  cli(
    [
      'user',
      'create',
      TENANT,
      '--username',
      USERNAME,
      '--email',
      'nurse@example.org',
      '--role',
      'sandbox:administrator',
      '--password',
      PASSWORD,
    ],
    env,
  );
  const port = await freePort();
  const { CAIRN_JOB_WORKERS: _inherited, ...inherited } = process.env;
  startChild(['dist/cli.js', 'serve'], {
    ...inherited,
    DATABASE_URL: url,
    CAIRN_DEMO: 'false',
    LOG_LEVEL: 'warn',
    PORT: String(port),
    CAIRN_DATA_DIR: dataDir,
    CAIRN_TOKEN_LIMIT: '100000000',
    CAIRN_JOB_WORKERS: '0',
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/health/ready`);
  const admin = await token(base, CLIENT_KEY, CLIENT_SECRET);
  const call = async (method: string, route: string, body: unknown) => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<Record<string, unknown>>;
  };
  const app = await call('POST', `/${TENANT}/admin/apps`, {
    name: 'identity bench',
    clientType: 'PUBLIC',
    redirectUris: [REDIRECT],
    scopes: ['openid', 'fhirUser', 'offline_access', 'user/*.rs'],
  });
  return {
    side: { name: 'cairn', issuer: `${base}/${TENANT}/sandbox/fhir/R4`, clientId: String(app.clientId), username: USERNAME },
    base,
  };
}

async function bareSide(): Promise<Side> {
  const port = await freePort();
  startChild(['--import', 'tsx', 'bench/identity-baseline.ts'], {
    ...process.env,
    PORT: String(port),
    CLIENT_ID: BASELINE_CLIENT,
    USERNAME,
    REDIRECT,
    PASSWORD,
  });
  const issuer = `http://127.0.0.1:${port}`;
  await waitFor(`${issuer}/.well-known/openid-configuration`);
  return { name: 'bare', issuer, clientId: BASELINE_CLIENT, username: USERNAME };
}

/** `POST /auth/token` timed, `count` times one after another. */
async function tokenRoute(base: string, body: Record<string, string>, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const began = performance.now();
    const response = await fetch(`${base}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await response.text();
    if (!response.ok) throw new Error(`/auth/token: ${response.status}`);
    times.push(performance.now() - began);
  }
  return times;
}

export async function benchIdentity(): Promise<string> {
  log('== identity: an app’s sign-in on Cairn against bare oidc-provider');
  const cluster = await startCluster(tunedPostgres());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-identity-'));
  try {
    const cairn = await cairnSide(cluster, dataDir);
    const bare = await bareSide();
    const sides = [cairn.side, bare];
    const configs = new Map<Side, oidc.Configuration>();
    for (const side of sides) {
      configs.set(
        side,
        await oidc.discovery(new URL(side.issuer), side.clientId, undefined, oidc.None(), {
          execute: [oidc.allowInsecureRequests],
        }),
      );
    }
    const timings = new Map<Side, Timings>(sides.map((side) => [side, { authorize: [], issue: [], refresh: [] }]));
    const refresh = new Map<Side, string | undefined>();
    for (const side of sides)
      for (let i = 0; i < WARM_UP; i++) await flow(side, configs.get(side)!, { authorize: [], issue: [], refresh: [] });
    // Turns: one flow of each, the first alternating, so drift touches both alike.
    for (let i = 0; i < FLOWS; i++) {
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
        refresh.set(side, await flow(side, configs.get(side)!, timings.get(side)!, refresh.get(side)));
      }
    }
    const password = await tokenRoute(cairn.base, { tenantName: TENANT, username: USERNAME, password: PASSWORD }, FLOWS);
    const client = await tokenRoute(cairn.base, { apiClient: CLIENT_KEY, secret: CLIENT_SECRET }, FLOWS);
    return report(timings.get(cairn.side)!, timings.get(bare)!, password, client);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(200);
    cluster.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(cairn: Timings, bare: Timings, password: number[], client: number[]): string {
  const ms = (values: number[]) => `${median(values).toFixed(1)} (p95 ${percentile(values, 95).toFixed(1)})`;
  const rows = (
    [
      ['Authorize round trip (7 requests, to the code)', 'authorize'],
      ['Token issue (code → tokens, PKCE)', 'issue'],
      ['Refresh (rotating)', 'refresh'],
    ] as const
  ).map(
    ([label, key]) =>
      `| ${label} | ${ms(cairn[key])} | ${ms(bare[key])} | ${(median(cairn[key]) / median(bare[key])).toFixed(2)} |`,
  );
  return [
    '## Identity: an app’s sign-in',
    '',
    `${FLOWS} flows one after another on each side, taking turns; ms, median (p95). Cairn: \`cairn serve\` (one process, job workers off) on PostgreSQL. Bare: oidc-provider alone, records in memory, the same forms and scrypt check (bench/identity-baseline.ts).`,
    '',
    '| | Cairn | Bare | Cairn ÷ bare |',
    '|---|---|---|---|',
    ...rows,
    `| \`POST /auth/token\`, password (scrypt) | ${ms(password)} | | |`,
    `| \`POST /auth/token\`, API client (scrypt) | ${ms(client)} | | |`,
    '',
  ].join('\n');
}

standalone(import.meta.url, 'identity', () => benchIdentity(), children);
