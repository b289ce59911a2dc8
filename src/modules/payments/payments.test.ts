import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCode, assertValidation, auditOf, createPatient, createTestTenant, startApp } from '../../test/harness.ts';

/** Saving a patient's payment method (002 "Payments and invoices") through the sandbox payments driver. */

const app = await startApp();
const unlicensed = await startApp({}, { env: { CAIRN_PAYMENTS_LICENSED_TENANTS: 'someone-else' } });

describe('subscriptions', () => {
  test('started on the saved method, listed, read, canceled; every field required; 400, 403, 404, tenants apart', async () => {
    const t = await createTestTenant(app);
    const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee' })).id;
    const member = await t.api.post(`${t.admin}/users`, {
      username: 'coach',
      email: 'coach@example.org',
      firstName: 'Casey',
      lastName: 'Coach',
      roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
    });
    const url = `${t.base}/payment/subscriptions`;
    const body = {
      name: 'Coaching',
      billingPeriod: 'MONTHLY',
      careMember: { id: member.body.id },
      patient: { id: patient },
      paymentTypeInfo: { paymentType: 'AUTO_CHARGE' },
      price: { amount: 4900, currency: 'USD' },
      startDate: '2099-01-01T00:00:00Z',
      numberOfCycles: 12,
    };
    assertCode(await t.api.post(url, body), 400, 'PAYMENT_METHOD_MISSING');
    await t.api.post(`${t.base}/payment/patients/${patient}/payment-methods`, { paymentMethodId: 'pm_card_visa' });
    const made = await t.api.post(url, body);
    assert.equal(made.status, 200, made.text);
    assert.equal(made.body.status, 'NOT_STARTED');
    assert.equal(made.body.pauseCollection, null);
    assert.deepEqual(made.body.price, { amount: 4900, currency: 'usd' });
    assert.deepEqual(made.body.careMember, { id: member.body.id, name: 'Casey Coach' });
    assert.deepEqual(made.body.patient, { id: patient, name: 'Pat Lee' });
    const now = await t.api.post(url, { ...body, startDate: '2020-01-01T00:00:00Z' });
    assert.equal(now.body.status, 'ACTIVE');

    const list = await t.api.get(`${url}?patientId=${patient}`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.content.map((one: { id: string }) => one.id),
      [now.body.id, made.body.id],
    );
    assert.deepEqual((await t.api.get(`${url}?status=ACTIVE`)).body.content.length, 1);
    assert.deepEqual((await t.api.get(`${url}/${made.body.id}`)).body, made.body);
    const canceled = await t.api.delete(`${url}/${made.body.id}`);
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.status, 'CANCELED');
    assert.ok(canceled.body.canceledAt);
    assert.equal((await t.api.delete(`${url}/${made.body.id}`)).body.status, 'CANCELED');

    for (const field of Object.keys(body)) {
      const { [field]: _, ...without } = body as Record<string, unknown>;
      assertValidation(await t.api.post(url, without), `body.${field}`);
    }
    assertValidation(await t.api.post(url, { ...body, price: { amount: 49.5, currency: 'usd' } }), 'body.price.amount');
    assertCode(await t.api.post(url, { ...body, careMember: { id: crypto.randomUUID() } }), 404, 'USER_NOT_FOUND');
    // A deleted user is no care member (as in every other user check), nor is another tenant's user.
    const gone = await t.api.post(`${t.admin}/users`, { username: 'gone', email: 'gone@example.org' });
    assert.equal(gone.status, 201, gone.text);
    assert.equal((await t.api.delete(`${t.admin}/users/gone`)).status, 200);
    assertCode(await t.api.post(url, { ...body, careMember: { id: gone.body.id } }), 404, 'USER_NOT_FOUND');
    const stranger = await createTestTenant(app);
    const theirs = await stranger.api.post(`${stranger.admin}/users`, { username: 'coach', email: 'coach@example.org' });
    assertCode(await t.api.post(url, { ...body, careMember: { id: theirs.body.id } }), 404, 'USER_NOT_FOUND');
    assertCode(await t.api.post(url, { ...body, patient: { id: crypto.randomUUID() } }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.api.get(`${url}/${crypto.randomUUID()}`), 404, 'SUBSCRIPTION_NOT_FOUND');
    const reader = await t.apiWith(['SUBSCRIPTION_READ']);
    assert.equal((await reader.get(url)).status, 200);
    assertCode(await reader.post(url, body), 403, 'ACCESS_DENIED');
    assertCode(await reader.delete(`${url}/${now.body.id}`), 403, 'ACCESS_DENIED');
    const other = await createTestTenant(app);
    assertCode(await other.api.get(`${other.base}/payment/subscriptions/${now.body.id}`), 404, 'SUBSCRIPTION_NOT_FOUND');
    assert.equal((await other.api.get(`${other.base}/payment/subscriptions`)).body.totalElements, 0);
  });
});

describe('payment methods', () => {
  test('the sandbox takes a test method (the customer made once), refuses a declined one with 400; 401, 403, 404, tenants apart', async () => {
    const t = await createTestTenant(app);
    const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee' })).id;
    const url = `${t.base}/payment/patients/${patient}/payment-methods`;
    const saved = await t.api.post(url, { paymentMethodId: 'pm_card_visa' });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body, { paymentMethodId: 'pm_card_visa' });
    const first = await app.services.db
      .selectFrom('payment_customers')
      .selectAll()
      .where('patient_id', '=', patient)
      .executeTakeFirstOrThrow();
    assert.match(first.customer_id, /^cus_sandbox_/);
    assert.equal((await t.api.post(url, { paymentMethodId: 'pm_card_mastercard' })).status, 200);
    const second = await app.services.db
      .selectFrom('payment_customers')
      .selectAll()
      .where('patient_id', '=', patient)
      .executeTakeFirstOrThrow();
    assert.equal(second.customer_id, first.customer_id, 'one customer a patient');
    assert.equal(second.payment_method_id, 'pm_card_mastercard');
    assert.equal((await auditOf(t, { action: 'PAYMENT_METHOD_SAVED' })).length, 2);

    const declined = await t.api.post(url, { paymentMethodId: 'pm_card_chargeDeclined' });
    assertCode(declined, 400, 'PAYMENT_METHOD_REJECTED');
    assert.equal(declined.body[0].message, 'Your card was declined.');
    assertCode(await t.api.post(url, { paymentMethodId: 'not a method' }), 400, 'PAYMENT_METHOD_REJECTED');
    assertValidation(await t.api.post(url, {}), 'body.paymentMethodId');
    assertCode(await t.anonymous.post(url, { paymentMethodId: 'pm_card_visa' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await (await t.apiWith(['PATIENT_UPDATE'])).post(url, { paymentMethodId: 'pm_card_visa' }), 403, 'ACCESS_DENIED');
    assertCode(
      await t.api.post(`${t.base}/payment/patients/${crypto.randomUUID()}/payment-methods`, { paymentMethodId: 'pm_card_visa' }),
      404,
      'PATIENT_NOT_FOUND',
    );
    const other = await createTestTenant(app);
    assertCode(
      await other.api.post(`${other.base}/payment/patients/${patient}/payment-methods`, { paymentMethodId: 'pm_card_visa' }),
      404,
      'PATIENT_NOT_FOUND',
    );
  });

  test('a tenant the operator has not licensed gets 403 PAYMENTS_NOT_LICENSED', async () => {
    const t = await createTestTenant(unlicensed);
    const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee' })).id;
    const refused = await t.api.post(`${t.base}/payment/patients/${patient}/payment-methods`, {
      paymentMethodId: 'pm_card_visa',
    });
    assertCode(refused, 403, 'PAYMENTS_NOT_LICENSED');
  });
});
