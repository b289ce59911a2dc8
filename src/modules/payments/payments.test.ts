import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCode, assertValidation, auditOf, createPatient, createTestTenant, startApp } from '../../test/harness.ts';

/** Saving a patient's payment method (002 "Payments and invoices") through the sandbox payments driver. */

const app = await startApp();
const unlicensed = await startApp({}, { env: { CAIRN_PAYMENTS_LICENSED_TENANTS: 'someone-else' } });

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
