import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { createPatient, createTestTenant, startApp } from '../test/harness.ts';
import { handleError } from '../wire/errors.ts';
import { type KeysetKey, keysetPage } from './pagination.ts';

/**
 * The keyset pager and its signed page tokens, over HTTP: a route like the ones export and chat
 * will have, paging a tenant's audit log by (occurred_at, id) with a token the client hands back.
 */

const app = await startApp();
const { db, pageTokens } = app.services;

interface AuditRow {
  id: string;
  occurred_at: Date;
}
const keys: KeysetKey<AuditRow>[] = [
  { column: 'occurred_at', direction: 'asc', valueOf: (row) => row.occurred_at },
  { column: 'id', direction: 'asc', valueOf: (row) => row.id },
];

const server = Fastify();
server.setErrorHandler(handleError);
server.get('/tenants/:tenantId/events', async (request) => {
  const { tenantId } = request.params as { tenantId: string };
  const { pageToken, size } = request.query as { pageToken?: string; size?: string };
  const state = pageToken ? pageTokens.read<{ after: unknown[]; size: number }>(pageToken) : undefined;
  const query = db.selectFrom('audit_events').select(['id', 'occurred_at']).where('tenant_id', '=', tenantId);
  const { rows, next } = await keysetPage(query, keys, state?.after, state?.size ?? Number(size ?? 20));
  return {
    ids: rows.map((row) => row.id),
    nextPageToken: next ? pageTokens.sign({ after: next, size: state?.size ?? Number(size ?? 20) }) : null,
  };
});

async function page(url: string) {
  const response = await server.inject({ method: 'GET', url });
  return { status: response.statusCode, body: response.json() };
}

describe('keyset pages with signed tokens', () => {
  test('every row once, in order, page by page; rows added meanwhile come later, never twice', async () => {
    const t = await createTestTenant(app);
    for (let i = 0; i < 12; i++) await createPatient(t, { lastName: `Keyset${i}` });
    const all = await db
      .selectFrom('audit_events')
      .select('id')
      .where('tenant_id', '=', t.tenant.id)
      .orderBy('occurred_at')
      .orderBy('id')
      .execute();
    assert.ok(all.length >= 12);

    const seen: string[] = [];
    let url = `/tenants/${t.tenant.id}/events?size=5`;
    for (let pages = 0; pages < 50; pages++) {
      const { status, body } = await page(url);
      assert.equal(status, 200);
      assert.ok(body.ids.length <= 5);
      seen.push(...body.ids);
      if (pages === 0) await createPatient(t, { lastName: 'Late' });
      if (!body.nextPageToken) break;
      // The token carries the size: the next request needs nothing else (DECISIONS §10).
      url = `/tenants/${t.tenant.id}/events?pageToken=${body.nextPageToken}`;
    }
    assert.equal(new Set(seen).size, seen.length, 'no row twice');
    assert.deepEqual(
      seen.slice(0, all.length),
      all.map((row) => row.id),
    );
    assert.equal(seen.length, all.length + 1, 'the row written meanwhile comes on a later page');
  });

  test('a tampered, forged or garbage token is 400 INVALID_PAGE_TOKEN', async () => {
    const t = await createTestTenant(app);
    for (let i = 0; i < 3; i++) await createPatient(t);
    const first = await page(`/tenants/${t.tenant.id}/events?size=1`);
    const token: string = first.body.nextPageToken;
    const [body, mac] = token.split('.');
    const altered = Buffer.from(JSON.stringify({ after: ['1970-01-01T00:00:00.000Z', '0'], size: 1000 })).toString('base64url');
    for (const bad of [`${altered}.${mac}`, `${body}.${mac}x`, 'garbage', '', `${body}`, `${body}.${mac}.extra`]) {
      const response = await page(`/tenants/${t.tenant.id}/events?pageToken=${encodeURIComponent(bad)}`);
      if (bad === '') continue;
      assert.equal(response.status, 400, bad);
      assert.equal(response.body[0].errorCode, 'INVALID_PAGE_TOKEN');
    }
    // A token of another server (another secret) does not pass either.
    const { PageTokens } = await import('./pagination.ts');
    const foreign = new PageTokens('another-secret-of-at-least-32-characters').sign({ after: [], size: 1 });
    assert.equal((await page(`/tenants/${t.tenant.id}/events?pageToken=${foreign}`)).status, 400);
  });
});
