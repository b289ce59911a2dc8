/**
 * `npm run bench:peer [-- --quick]`: Cairn side by side with another FHIR server (Medplum, as
 * issue 43 measured it), on the same patients, under the same load, in one run.
 *
 * The peer runs on its own (this bench does not start it); to rerun the Medplum comparison:
 *
 * 1. Start Medplum 5.x against a PostgreSQL on this machine (its repository's
 *    `docker-compose.full-stack.yml`, or its "install from scratch" guide), sign in to its app,
 *    and make a ClientApplication in the project (Project → Clients): note its id and secret.
 * 2. Run, from this repository, with the peer's address, its client, and its server's pid (for its
 *    memory; leave it out when the peer runs in a container):
 *    `PEER_URL=http://localhost:8103 PEER_CLIENT_ID=… PEER_CLIENT_SECRET=… PEER_PID=… npm run bench:peer`
 *    (`PEER_TOKEN=…` instead of the client: a bearer token as is). Cairn runs on a throwaway
 *    PostgreSQL of its own, tuned as run.ts's, or on BENCH_DATABASE_URL: give the peer's server
 *    there for "the same PostgreSQL".
 *
 * It loads 10,000 patients into Cairn (`cairn seed bulk`) and the same ones (name, gender, birth
 * date) into the peer by FHIR batch bundles of 500, then runs six pairs, the two servers taking
 * turns over three rounds (a warm-up of each first), at 10 connections, medians kept:
 *
 * | pair | Cairn | peer |
 * |---|---|---|
 * | get a patient by id | `GET /patients/{id}` | `GET /fhir/R4/Patient/{id}` |
 * | search | `GET /patients?search={term}` | `GET /fhir/R4/Patient?name={term}` |
 * | search like for like | the same | `?name:contains={term}&_total=accurate` (Cairn's page counts every match) |
 * | create a patient | `POST /patients` | `POST /fhir/R4/Patient` |
 * | FHIR read | `GET /fhir/R4/Patient/{id}` | `GET /fhir/R4/Patient/{id}` |
 * | FHIR search | `GET /fhir/R4/Patient?family={term}&_count=20` | the same |
 *
 * Terms are the first three letters of sampled surnames. Cairn runs from the build (`cairn serve
 * --workers 2`, job workers off) on its defaults (access log on, heap capped); the peer's peak
 * memory is its server process's RSS sampled every 300 ms, Cairn's the highest of its workers'.
 * Issue 43's targets: get, create and FHIR read ≥ 3×, search ≥ 1.5× and like for like ≥ 3×, Cairn's
 * worker peak ≤ ⅓ of the peer's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { type Cluster, freePort, startCluster } from '../src/test/postgres-cluster.ts';
import { benchClient, cli, load, log, median, query, quick, root, standalone, token, tunedPostgres, waitFor } from './common.ts';
import type { LoadPlan, LoadResult } from './load.ts';
import { peakMemory, rssMb } from './memory.ts';

const PATIENTS = 10_000;
const ROUNDS = quick ? 1 : 3;
const seconds = quick ? 3 : 10;
const CONNECTIONS = 10;
const TENANT = 'bench-peer';
const KEY = 'bench-peer-client';
const SECRET = 'bench-peer-secret-0123456789';
const BUNDLE = 500;
const children: ChildProcess[] = [];

interface Pair {
  name: string;
  target: number;
  cairn: LoadPlan;
  peer: LoadPlan;
}

interface Side {
  result: LoadResult;
  peakMb: number | null;
}

async function peerToken(url: string): Promise<string> {
  if (process.env.PEER_TOKEN) return process.env.PEER_TOKEN;
  const { PEER_CLIENT_ID: id, PEER_CLIENT_SECRET: secret } = process.env;
  if (!id || !secret) throw new Error('give PEER_CLIENT_ID and PEER_CLIENT_SECRET (or PEER_TOKEN)');
  const response = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }),
  });
  if (!response.ok) throw new Error(`the peer's token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

interface SeedPatient {
  id: string;
  first_name: string;
  last_name: string;
  gender: string | null;
  birth_date: string | null;
}

/** The same patients in the peer, by FHIR batch bundles; answers the peer's ids. */
async function loadPeer(url: string, bearer: string, patients: SeedPatient[]): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < patients.length; start += BUNDLE) {
    const entry = patients.slice(start, start + BUNDLE).map((patient) => ({
      request: { method: 'POST', url: 'Patient' },
      resource: {
        resourceType: 'Patient',
        name: [{ family: patient.last_name, given: [patient.first_name] }],
        ...(patient.gender ? { gender: patient.gender.toLowerCase() } : {}),
        ...(patient.birth_date ? { birthDate: patient.birth_date } : {}),
      },
    }));
    const response = await fetch(`${url}/fhir/R4`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/fhir+json' },
      body: JSON.stringify({ resourceType: 'Bundle', type: 'batch', entry }),
    });
    if (!response.ok) throw new Error(`the peer's batch: ${response.status} ${await response.text()}`);
    const bundle = (await response.json()) as { entry?: { resource?: { id?: string } }[] };
    for (const item of bundle.entry ?? []) if (item.resource?.id) ids.push(item.resource.id);
  }
  return ids;
}

/** Each side's run, rounds alternating, with peak memory: Cairn's workers', the peer's process's. */
async function measure(pair: Pair, cairn: ChildProcess, peerPid: number | undefined): Promise<{ cairn: Side; peer: Side }> {
  await load({ ...pair.cairn, seconds: 1 });
  await load({ ...pair.peer, seconds: 1 });
  const runs: { cairn: Side[]; peer: Side[] } = { cairn: [], peer: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const measured = await peakMemory(cairn, () => load(pair.cairn));
    runs.cairn.push({ result: measured.value, peakMb: measured.peakMb });
    runs.peer.push(await peerRun(pair.peer, peerPid));
  }
  return { cairn: medianRun(runs.cairn), peer: medianRun(runs.peer) };
}

/** The run of median throughput, with the highest peak of all the rounds. */
function medianRun(sides: Side[]): Side {
  const rps = median(sides.map((side) => side.result.rps));
  const closest = sides.reduce((best, side) => (Math.abs(side.result.rps - rps) < Math.abs(best.result.rps - rps) ? side : best));
  const peaks = sides.flatMap((side) => (side.peakMb === null ? [] : [side.peakMb]));
  return { result: closest.result, peakMb: peaks.length > 0 ? Math.max(...peaks) : null };
}

async function peerRun(plan: LoadPlan, pid: number | undefined): Promise<Side> {
  let peak: number | null = null;
  const sample = () => {
    const mb = pid === undefined ? null : rssMb(pid);
    if (mb !== null) peak = Math.max(peak ?? 0, mb);
  };
  const timer = setInterval(sample, 300);
  try {
    const result = await load(plan);
    sample();
    return { result, peakMb: peak };
  } finally {
    clearInterval(timer);
  }
}

export async function benchPeer(): Promise<string> {
  const peerUrl = process.env.PEER_URL?.replace(/\/$/, '');
  if (!peerUrl) throw new Error('PEER_URL is the peer server to compare with (bench/peer.ts says how to start Medplum)');
  const peerPid = process.env.PEER_PID ? Number(process.env.PEER_PID) : undefined;
  let cluster: Cluster | undefined;
  let databaseUrl = process.env.BENCH_DATABASE_URL;
  if (!databaseUrl) {
    cluster = await startCluster(tunedPostgres());
    databaseUrl = cluster.url('postgres');
  }
  const env = { ...process.env, DATABASE_URL: databaseUrl, CAIRN_DEMO: 'false', LOG_LEVEL: 'warn' };
  try {
    log('== load Cairn');
    cli(['migrate'], env);
    const exists = await query(databaseUrl, 'SELECT 1 FROM tenants WHERE name = $1', [TENANT]);
    if (exists.length === 0) {
      cli(['seed', 'bulk', '--tenant', TENANT, '--patients', String(PATIENTS), '--tasks', '0', '--events', '0'], env);
      cli(benchClient(TENANT, KEY, SECRET), env);
    }
    const patients = await query<SeedPatient>(
      databaseUrl,
      `SELECT p.id, p.first_name, p.last_name, p.gender, p.birth_date::text AS birth_date
       FROM patients p JOIN tenants t ON t.id = p.tenant_id WHERE t.name = $1 ORDER BY p.id`,
      [TENANT],
    );
    log('== load the peer');
    const peerBearer = await peerToken(peerUrl);
    const peerIds = await loadPeer(peerUrl, peerBearer, patients);
    if (peerIds.length === 0) throw new Error('the peer answered the batches with no ids');

    const port = await freePort();
    const cairn = spawn(process.execPath, ['dist/cli.js', 'serve', '--workers', '2'], {
      cwd: root,
      env: { ...env, PORT: String(port), CAIRN_JOB_WORKERS: '0' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(cairn);
    const cairnUrl = `http://127.0.0.1:${port}`;
    await waitFor(`${cairnUrl}/health/ready`);
    const cairnBearer = await token(cairnUrl, KEY, SECRET);

    const sampled = <T>(items: T[], count: number) => Array.from({ length: count }, (_, i) => items[(i * 7919) % items.length]!);
    const terms = [...new Set(sampled(patients, 200).map((patient) => patient.last_name.slice(0, 3).toLowerCase()))];
    const names = sampled(patients, 200).map((patient) =>
      JSON.stringify({ firstName: patient.first_name, lastName: patient.last_name }),
    );
    const fhirNames = sampled(patients, 200).map((patient) =>
      JSON.stringify({ resourceType: 'Patient', name: [{ family: patient.last_name, given: [patient.first_name] }] }),
    );
    const prefix = `/${TENANT}/sandbox`;
    const plan = (side: 'cairn' | 'peer', method: LoadPlan['method'], paths: string[], bodies?: string[]): LoadPlan => ({
      url: side === 'cairn' ? cairnUrl : peerUrl,
      method,
      headers: {
        authorization: `Bearer ${side === 'cairn' ? cairnBearer : peerBearer}`,
        ...(bodies ? { 'content-type': side === 'cairn' ? 'application/json' : 'application/fhir+json' } : {}),
      },
      paths,
      ...(bodies ? { bodies } : {}),
      connections: CONNECTIONS,
      seconds,
    });
    const cairnIds = sampled(patients, 1000).map((patient) => patient.id);
    const otherIds = sampled(peerIds, 1000);
    /** A pair of reads: Cairn's paths for its ids (or terms), the peer's for its own. */
    const reads = (name: string, target: number, cairn: string[], peer: string[]): Pair => ({
      name,
      target,
      cairn: plan('cairn', 'GET', cairn),
      peer: plan('peer', 'GET', peer),
    });
    const peerReads = otherIds.map((id) => `/fhir/R4/Patient/${id}`);
    const cairnSearches = terms.map((term) => `${prefix}/patients?search=${term}`);
    const pairs: Pair[] = [
      reads(
        'get a patient by id',
        3,
        cairnIds.map((id) => `${prefix}/patients/${id}`),
        peerReads,
      ),
      reads(
        'search (Cairn search, peer name)',
        1.5,
        cairnSearches,
        terms.map((term) => `/fhir/R4/Patient?name=${term}`),
      ),
      reads(
        'search like for like (name:contains, exact total)',
        3,
        cairnSearches,
        terms.map((term) => `/fhir/R4/Patient?name:contains=${term}&_total=accurate`),
      ),
      {
        name: 'create a patient',
        target: 3,
        cairn: plan('cairn', 'POST', [`${prefix}/patients`], names),
        peer: plan('peer', 'POST', ['/fhir/R4/Patient'], fhirNames),
      },
      reads(
        'FHIR Patient/{id}',
        3,
        cairnIds.map((id) => `${prefix}/fhir/R4/Patient/${id}`),
        peerReads,
      ),
      reads(
        'FHIR Patient?family=…&_count=20',
        1.5,
        terms.map((term) => `${prefix}/fhir/R4/Patient?family=${term}&_count=20`),
        terms.map((term) => `/fhir/R4/Patient?family=${term}&_count=20`),
      ),
    ];

    const lines = [
      '',
      `## Side by side with ${peerUrl} (${PATIENTS.toLocaleString('en-US')} patients each)`,
      '',
      `bench/peer.ts: ${CONNECTIONS} connections, ${seconds} s per run, ${ROUNDS} alternating round(s), medians; Cairn from the build, 2 workers, job workers off, access log on.`,
      '',
      '| pair | Cairn req/s | peer req/s | Cairn ÷ peer | target | Cairn p95 ms | peer p95 ms | Cairn worker peak MB | peer peak MB |',
      '|---|---|---|---|---|---|---|---|---|',
    ];
    let cairnPeak = 0;
    let otherPeak = 0;
    for (const pair of pairs) {
      log(`== ${pair.name}`);
      const { cairn: ours, peer } = await measure(pair, cairn, peerPid);
      const ratio = ours.result.rps / Math.max(1, peer.result.rps);
      cairnPeak = Math.max(cairnPeak, ours.peakMb ?? 0);
      otherPeak = Math.max(otherPeak, peer.peakMb ?? 0);
      const errors = ours.result.non2xx + ours.result.errors + peer.result.non2xx + peer.result.errors;
      lines.push(
        `| ${pair.name} | ${ours.result.rps.toFixed(0)} | ${peer.result.rps.toFixed(0)} | ${ratio.toFixed(2)} | ≥ ${pair.target}: ${ratio >= pair.target ? 'met' : 'missed'} | ${ours.result.p95.toFixed(1)} | ${peer.result.p95.toFixed(1)} | ${ours.peakMb?.toFixed(0) ?? '–'} | ${peer.peakMb?.toFixed(0) ?? '–'} |${errors ? ` (${errors} errors or non-2xx)` : ''}`,
      );
    }
    lines.push(
      '',
      peerPid === undefined
        ? "Peak memory: the peer's not sampled (no PEER_PID)."
        : `Peak memory: Cairn's worker ${cairnPeak.toFixed(0)} MB against the peer's ${otherPeak.toFixed(0)} MB: ${(cairnPeak / Math.max(1, otherPeak)).toFixed(2)} (target ≤ 0.33).`,
      '',
    );
    cairn.kill('SIGTERM');
    return lines.join('\n');
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await cluster?.stop();
  }
}

standalone(import.meta.url, 'peer', benchPeer, children);
