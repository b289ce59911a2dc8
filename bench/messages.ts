/**
 * `npm run bench:messages` (and the end of `npm run bench`): chat paging, SMS sends and email delivery.
 *
 * - Chat paging: one patient with 100,000 chat messages; page 1 (20 newest) against page 500,
 *   reached by following `nextPageToken` 499 times; the pages take turns over rounds. Keyset
 *   paging on (created_at, id) should make both cost the same (target p95 ratio ≤ 1.2).
 * - Two-step SMS through the sandbox: `POST /communications` then `POST /{communicationId}/messages`,
 *   10 senders at a time; sends per second end to end (both requests; the sandbox takes it at once).
 * - Email through SMTP: drafts sent through the API (10 at a time) to an SMTP server on this
 *   machine (smtp-server, what CI's tests use); emails queued per second (the send route's
 *   answers) and delivered per second (from the first send to the relay holding the last).
 *
 * The server is `cairn serve --workers 2` from the build, job workers on, with PostgreSQL on the
 * same machine; the chat load comes from a separate process (bench/load.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { freePort, startCluster } from '../src/test/postgres-cluster.ts';
import { benchClient, cli, load, log, median, quick, root, settle, standalone } from './common.ts';
import type { LoadPlan } from './load.ts';

const MESSAGES = 100_000;
const PAGE_SIZE = 20;
const DEEP_PAGE = 500;
const EMAILS = quick ? 500 : 2_000;
const SMS = quick ? 500 : 2_000;
const seconds = quick ? 3 : 10;
const ROUNDS = quick ? 2 : 3;
const tenant = 'messages';
const clientKey = 'messages-bench';
const clientSecret = 'messages-bench-secret-0123';
const children: ChildProcess[] = [];

/** An SMTP server that takes everything (no TLS on loopback) and counts what arrived, and when. */
async function startRelay() {
  const arrivals: number[] = [];
  const relay = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 200,
    onData(stream, _session, callback) {
      stream.on('end', () => {
        arrivals.push(Date.now());
        callback();
      });
      stream.resume();
    },
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return { port: (relay.server.address() as AddressInfo).port, arrivals, close: () => relay.close() };
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

export async function benchMessages(): Promise<string> {
  const cluster = await startCluster({ synchronous_commit: 'off', max_connections: '100' });
  try {
    const env = { ...process.env, DATABASE_URL: cluster.url('postgres'), CAIRN_DEMO: 'false', LOG_LEVEL: 'warn' };
    log(`== messages: a tenant, and a patient with ${MESSAGES.toLocaleString('en-US')} chat messages`);
    cli(['migrate'], env);
    cli(['seed', 'bulk', '--tenant', tenant, '--patients', '1000', '--tasks', '0'], env);
    cli(benchClient(tenant, clientKey, clientSecret), env);
    const db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
    const { rows: patients } = await db.query(
      `SELECT p.tenant_id, p.instance_id, p.id FROM patients p JOIN tenants t ON t.id = p.tenant_id WHERE t.name = $1 ORDER BY p.id LIMIT 200`,
      [tenant],
    );
    const chatty = patients[0] as { tenant_id: string; instance_id: string; id: string };
    // A message a minute, going back: what a very long conversation looks like.
    await db.query(
      `INSERT INTO chat_messages (tenant_id, instance_id, id, patient_id, sender_type, sender_id, message, external_id, created_at)
       SELECT $1, $2, gen_random_uuid(), $3, 'PATIENT', $3, 'Message number ' || n || ' about my medication', 'IM' || md5(n::text),
              timestamptz '2026-01-01' - n * interval '1 minute'
       FROM generate_series(1, ${MESSAGES}) AS n`,
      [chatty.tenant_id, chatty.instance_id, chatty.id],
    );
    await db.query('ANALYZE chat_messages');

    const port = await freePort();
    const child = spawn(process.execPath, ['dist/cli.js', 'serve', '--workers', '2'], {
      cwd: root,
      env: { ...env, PORT: String(port), CAIRN_PROVIDERS_ALLOW_PRIVATE: 'true', CAIRN_TOKEN_LIMIT: '100000000' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    for (let attempt = 0; attempt < 240; attempt++) {
      if (
        await fetch(`${base}/health/ready`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await sleep(250);
    }
    const token = (
      (await (
        await fetch(`${base}/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiClient: clientKey, secret: clientSecret }),
        })
      ).json()) as { token: string }
    ).token;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    log(`== messages: walking to chat page ${DEEP_PAGE}`);
    const chat = `/${tenant}/sandbox/patients/${chatty.id}/chat`;
    const first = `${chat}?size=${PAGE_SIZE}`;
    let path_ = first;
    const seen = new Set<string>();
    for (let page = 1; page < DEEP_PAGE; page++) {
      const body = (await (await fetch(`${base}${path_}`, { headers })).json()) as {
        meta: { nextPageToken: string | null };
        content: { externalId: string }[];
      };
      for (const message of body.content) seen.add(message.externalId);
      if (!body.meta.nextPageToken) throw new Error(`the chat ended at page ${page}`);
      path_ = `${chat}?pageToken=${encodeURIComponent(body.meta.nextPageToken)}`;
    }
    const deep = path_;
    const plan = (paths: string[]): LoadPlan => ({ url: base, method: 'GET', headers, paths, connections: 10, seconds });
    for (const paths of [[first], [deep]]) await load({ ...plan(paths), seconds: 2 });
    const p95s: { first: number[]; deep: number[] } = { first: [], deep: [] };
    const rps: { first: number[]; deep: number[] } = { first: [], deep: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, paths] of [
        ['first', [first]],
        ['deep', [deep]],
      ] as const) {
        const result = await load(plan([...paths]));
        if (result.non2xx > 0 || result.errors > 0)
          throw new Error(`chat ${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        p95s[name].push(result.p95);
        rps[name].push(result.rps);
      }
    }
    const chatRatio = median(p95s.deep) / median(p95s.first);

    log(`== messages: ${EMAILS} emails through SMTP`);
    const relay = await startRelay();
    const configured = await fetch(`${base}/${tenant}/admin/providers/email`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({
        driver: 'smtp',
        options: { host: '127.0.0.1', port: relay.port, requireTLS: false, from: 'care@bench.example', maxConnections: 5 },
      }),
    });
    if (!configured.ok) throw new Error(`configuring SMTP failed: ${configured.status} ${await configured.text()}`);
    const drafts: { patient: string; id: string }[] = [];
    await pool(
      Array.from({ length: EMAILS }, (_, index) => (patients[index % patients.length] as { id: string }).id),
      10,
      async (patient) => {
        const response = await fetch(`${base}/${tenant}/sandbox/patients/${patient}/email-drafts`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            subject: 'Your visit',
            body: 'See you on Monday at 10.',
            patientEmail: 'patient@bench.example',
          }),
        });
        drafts.push({ patient, id: ((await response.json()) as { id: string }).id });
      },
    );
    const startedAt = Date.now();
    let failures = 0;
    await pool(drafts, 10, async ({ patient, id }) => {
      const response = await fetch(`${base}/${tenant}/sandbox/patients/${patient}/email-drafts/${id}/send`, {
        method: 'POST',
        headers,
      });
      if (!response.ok) failures += 1;
      await response.arrayBuffer();
    });
    const queuedSeconds = (Date.now() - startedAt) / 1000;
    await settle(() => relay.arrivals.length, EMAILS - failures);
    const deliveredSeconds = (Math.max(...relay.arrivals) - startedAt) / 1000;
    log(`== messages: ${SMS} two-step SMS through the sandbox`);
    const smsStartedAt = Date.now();
    let smsFailures = 0;
    await pool(
      Array.from({ length: SMS }, (_, index) => (patients[index % patients.length] as { id: string }).id),
      10,
      async (patient) => {
        const opened = await fetch(`${base}/${tenant}/sandbox/communications`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ channel: 'SMS', patientContactId: patient }),
        });
        const { communicationId } = (await opened.json()) as { communicationId: string };
        const sent = await fetch(`${base}/${tenant}/sandbox/${communicationId}/messages`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ message: 'Your appointment is on Monday at 10. Reply STOP to opt out.' }),
        });
        if (!opened.ok || sent.status !== 201) smsFailures += 1;
        await sent.arrayBuffer();
      },
    );
    const smsSeconds = (Date.now() - smsStartedAt) / 1000;
    const { rows: smsStatuses } = await db.query(
      `SELECT status, count(*)::int AS n FROM sms_messages WHERE tenant_id = $1 GROUP BY status ORDER BY status`,
      [chatty.tenant_id],
    );
    const { rows: statuses } = await db.query(
      `SELECT status, count(*)::int AS n FROM emails WHERE tenant_id = $1 GROUP BY status ORDER BY status`,
      [chatty.tenant_id],
    );
    await db.end();
    relay.close();

    const list = (values: number[]) => values.map((value) => value.toFixed(0)).join(', ');
    return [
      '',
      '## Chat paging, SMS and email delivery',
      '',
      `${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}. \`cairn serve --workers 2\` (job workers on), PostgreSQL and the SMTP server on this machine; chat: ${seconds} s runs, 10 connections, ${ROUNDS} rounds taking turns (medians).`,
      '',
      '| Measure | Value | Target |',
      '|---|---|---|',
      `| chat page 1 (${PAGE_SIZE} newest of ${MESSAGES.toLocaleString('en-US')}) | p95 ${median(p95s.first).toFixed(1)} ms, ${list(rps.first)} req/s | |`,
      `| chat page ${DEEP_PAGE} (by nextPageToken) | p95 ${median(p95s.deep).toFixed(1)} ms, ${list(rps.deep)} req/s | |`,
      `| page ${DEEP_PAGE} ÷ page 1, p95 | ${chatRatio.toFixed(2)} (${seen.size.toLocaleString('en-US')} messages walked, none twice: ${seen.size === (DEEP_PAGE - 1) * PAGE_SIZE ? 'yes' : 'NO'}) | ≤ 1.2: ${chatRatio <= 1.2 ? 'met' : 'MISSED'} |`,
      `| two-step SMS sent per second through the sandbox (POST /communications, then /{communicationId}/messages; 10 at a time) | ${(SMS / smsSeconds).toFixed(0)} (${SMS} in ${smsSeconds.toFixed(1)} s, ${smsFailures} failed; statuses ${smsStatuses.map((row) => `${row.status} ${row.n}`).join(', ')}) | |`,
      `| emails queued per second (POST …/email-drafts/{id}/send, 10 at a time) | ${(EMAILS / queuedSeconds).toFixed(0)} (${EMAILS} in ${queuedSeconds.toFixed(1)} s, ${failures} failed) | |`,
      `| emails delivered per second through SMTP (first send → the relay holds the last) | ${(relay.arrivals.length / deliveredSeconds).toFixed(0)} (${relay.arrivals.length} in ${deliveredSeconds.toFixed(1)} s; statuses ${statuses.map((row) => `${row.status} ${row.n}`).join(', ')}) | |`,
      '',
    ].join('\n');
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(500);
    cluster.stop();
  }
}

standalone(import.meta.url, 'messages', benchMessages, children);
