import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { emailSlot } from '../../providers/email/email.ts';
import { loadProviderConfig } from '../../providers/store.ts';
import { assertCode, assertValidation, createTestTenant, newInstance, startApp } from '../../test/harness.ts';

/** Outside services' configuration per tenant and per instance: /{tenant}/admin/providers. */

const app = await startApp();
const smtp = {
  driver: 'smtp',
  options: { host: 'smtp.clinic.example', user: 'relay', password: 'p4ssw0rd', from: 'care@clinic.example' },
};

describe('/{tenant}/admin/providers', () => {
  test("the tenant's and an instance's configuration, the level that applies, credentials sealed and kept", async () => {
    const t = await createTestTenant(app);
    const scope = { tenantId: t.tenant.id, instanceId: t.instance.id };
    const before = await t.api.get(`${t.admin}/providers`);
    assert.equal(before.status, 200, before.text);
    const email = before.body.find((entry: { channel: string }) => entry.channel === 'email');
    assert.equal(email.serverDriver, 'sandbox');
    assert.deepEqual(
      email.drivers.map((driver: { name: string }) => driver.name),
      ['sandbox', 'smtp'],
    );
    assert.deepEqual(email.drivers[1].secrets, ['password', 'inboundSecret']);
    assert.deepEqual(email.configurations, []);

    const put = await t.api.put(`${t.admin}/providers/email`, smtp);
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.instanceName, null);
    assert.equal(put.body.driver, 'smtp');
    assert.deepEqual(put.body.secretsSet, ['password']);
    assert.equal(put.body.options.password, undefined);
    // Defaults filled: STARTTLS required, the certificate checked.
    assert.equal(put.body.options.port, 587);
    assert.equal(put.body.options.requireTLS, true);
    assert.ok(!JSON.stringify((await t.api.get(`${t.admin}/providers`)).body).includes('p4ssw0rd'));
    const row = await app.services.db
      .selectFrom('provider_settings')
      .selectAll()
      .where('tenant_id', '=', t.tenant.id)
      .executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes('p4ssw0rd'), 'the password is sealed at rest');
    assert.equal(await app.services.providers.driverName(emailSlot, scope), 'smtp');

    // A PUT that leaves the password out keeps it (same driver).
    const moved = await t.api.put(`${t.admin}/providers/email`, {
      driver: 'smtp',
      options: { ...smtp.options, password: undefined, port: 2525 },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(moved.body.secretsSet, ['password']);
    const opened = await loadProviderConfig(app.services.db, app.services.sealer, 'email', scope);
    assert.equal(opened?.options.password, 'p4ssw0rd');
    assert.equal(opened?.options.port, 2525);
    assert.equal(opened?.level, 'tenant');

    // An instance's own configuration comes first; removing it brings the tenant's back.
    const own = await t.api.put(`${t.admin}/providers/email/instances/${t.instance.name}`, { driver: 'sandbox' });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.body.instanceName, t.instance.name);
    assert.equal(own.body.options.from, 'care-team@sandbox.invalid');
    assert.equal(await app.services.providers.driverName(emailSlot, scope), 'sandbox');
    const listed = (await t.api.get(`${t.admin}/providers`)).body.find((entry: { channel: string }) => entry.channel === 'email');
    assert.deepEqual(
      listed.configurations.map((c: { instanceName: string | null; driver: string }) => [c.instanceName, c.driver]),
      [
        [null, 'smtp'],
        [t.instance.name, 'sandbox'],
      ],
    );
    const removed = await t.api.delete(`${t.admin}/providers/email/instances/${t.instance.name}`);
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.text, '');
    assert.equal(await app.services.providers.driverName(emailSlot, scope), 'smtp');
    assertCode(await t.api.delete(`${t.admin}/providers/email/instances/${t.instance.name}`), 404, 'PROVIDER_SETTINGS_NOT_FOUND');
    assert.equal((await t.api.delete(`${t.admin}/providers/email`)).status, 200);
    assert.equal(await app.services.providers.driverName(emailSlot, scope), 'sandbox');

    const audit = await app.services.db
      .selectFrom('audit_events')
      .select(['action'])
      .where('tenant_id', '=', t.tenant.id)
      .where('entity_type', '=', 'PROVIDER')
      .orderBy('occurred_at')
      .execute();
    assert.deepEqual(
      audit.map((entry) => entry.action),
      [
        'PROVIDER_SETTINGS_UPDATED',
        'PROVIDER_SETTINGS_UPDATED',
        'PROVIDER_SETTINGS_UPDATED',
        'PROVIDER_SETTINGS_DELETED',
        'PROVIDER_SETTINGS_DELETED',
      ],
    );
  });

  test('400 for a driver or options the channel does not take, 404 for an unknown channel or instance, 403 without the permission', async () => {
    const t = await createTestTenant(app);
    const put = (path: string, body: unknown) => t.api.put(`${t.admin}/providers/${path}`, body);
    assertValidation(await put('email', { driver: 'pigeon' }), 'body.driver');
    assertValidation(await put('email', { driver: 'constructor' }), 'body.driver');
    assertValidation(await put('email', { driver: 'smtp', options: { from: 'care@clinic.example' } }), 'body.options');
    assertValidation(await put('email', { driver: 'smtp', options: { ...smtp.options, port: 70000 } }), 'body.options.port');
    assertValidation(await put('email', { driver: 'sandbox', options: { from: 'not an address' } }), 'body.options.from');
    assertValidation(await put('email', { options: {} }));
    assertCode(await put('carrier-pigeon', smtp), 404, 'PROVIDER_CHANNEL_NOT_FOUND');
    assertCode(await put('email/instances/nowhere', smtp), 404, 'INSTANCE_NOT_FOUND');
    assertCode(await t.api.delete(`${t.admin}/providers/email`), 404, 'PROVIDER_SETTINGS_NOT_FOUND');

    const other = await createTestTenant(app);
    await newInstance(app, other.tenant, 'live');
    assertCode(await put('email/instances/live', smtp), 404, 'INSTANCE_NOT_FOUND');
    const reader = await t.apiWith(['WEBHOOK_READ']);
    assertCode(await reader.get(`${t.admin}/providers`), 403, 'ACCESS_DENIED');
    assertCode(await t.anonymous.put(`${t.admin}/providers/email`, smtp), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    // Another tenant's configuration is its own.
    assert.equal((await put('email', smtp)).status, 200);
    const theirs = (await other.api.get(`${other.admin}/providers`)).body.find(
      (entry: { channel: string }) => entry.channel === 'email',
    );
    assert.deepEqual(theirs.configurations, []);
  });
});
