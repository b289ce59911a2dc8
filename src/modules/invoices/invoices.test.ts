import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import {
  assertCode,
  assertValidation,
  createPatient,
  createTestTenant,
  pageObjectKeys,
  startApp,
  type TestTenant,
  testFormation,
} from '../../test/harness.ts';

/**
 * Invoices (002 "Payments and invoices", DECISIONS §8): made by a job when a SELF_PAY encounter
 * with visit services is FINALIZED, numbered per tenant without gaps, read by the four routes.
 */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });

const formation = () =>
  testFormation({
    visitServices: [
      {
        name: 'initial-visit',
        title: 'Initial visit',
        serviceCost: 15000,
        cancellationFee: 2500,
        preVisitCost: 0,
        modifiers: [],
      },
      { name: 'follow-up', title: 'Follow-up', serviceCost: 8000, cancellationFee: 1500, preVisitCost: 0, modifiers: ['95'] },
    ],
  });

async function setup() {
  const t = await createTestTenant(app, formation());
  const host = await t.api.post(`${t.admin}/users`, {
    username: 'host',
    email: 'host@example.org',
    firstName: 'Dana',
    lastName: 'Host',
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(host.status, 201, host.text);
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee' })).id;
  return { t, host: host.body.id as string, patient };
}

/** An encounter of `patient` hosted by `host`, moved to FINALIZED. */
async function finalized(t: TestTenant, patient: string, host: string, body: Record<string, unknown>) {
  const base = `${t.base}/patients/${patient}/encounters`;
  const created = await t.api.post(base, {
    title: 'Visit',
    currentScheduledAppointment: {
      startDateTime: '2026-07-01T16:00:00Z',
      endDateTime: '2026-07-01T16:30:00Z',
      hostId: host,
      eventMode: 'IN-PERSON',
    },
    ...body,
  });
  assert.equal(created.status, 201, created.text);
  for (const status of ['OPEN', 'ACTIVE', 'FINALIZED']) {
    const moved = await t.api.patch(`${base}/${created.body.id}`, { status });
    assert.equal(moved.status, 200, moved.text);
  }
  return created.body.id as string;
}

describe('invoices', () => {
  test('a finalized SELF_PAY encounter with services is invoiced once: items, total, care member, patient, number', async () => {
    const { t, host, patient } = await setup();
    const encounter = await finalized(t, patient, host, {
      responsibleParty: 'SELF_PAY',
      visitServices: [{ name: 'initial-visit' }, { name: 'follow-up', quantity: 2, modifiers: ['95'] }],
    });
    await app.jobs.drain();
    const list = await t.api.get(`${t.base}/invoice/invoices`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(Object.keys(list.body).sort(), pageObjectKeys);
    assert.equal(list.body.totalElements, 1);
    const invoice = list.body.content[0];
    assert.equal(invoice.customInvoiceId, 'INV-000001');
    assert.equal(invoice.status, 'OPEN');
    assert.equal(invoice.billingType, 'SELF_PAY');
    assert.deepEqual(invoice.paymentTypeInfo, { paymentType: 'AUTO_CHARGE' });
    assert.equal(invoice.amount, 15000 + 2 * 8000);
    assert.equal(invoice.amountPaid, 0);
    assert.deepEqual(invoice.relatedEncounters, [encounter]);
    assert.deepEqual(invoice.patient, { id: patient, name: 'Pat Lee' });
    assert.deepEqual(invoice.careMember, { id: host, name: 'Dana Host' });
    assert.deepEqual(
      invoice.invoiceItems.map(({ id: _, ...item }: { id: string }) => item),
      [
        { description: 'Initial visit', quantity: 1, unitAmount: 15000, serviceCode: 'initial-visit', serviceModifiers: [] },
        { description: 'Follow-up', quantity: 2, unitAmount: 8000, serviceCode: 'follow-up', serviceModifiers: ['95'] },
      ],
    );
    assert.equal(new Date(invoice.dueDate).getTime() - new Date(invoice.invoiceDate).getTime(), 30 * 24 * 60 * 60 * 1000);
    assert.deepEqual((await t.api.get(`${t.base}/invoice/invoices/${invoice.id}`)).body, invoice);
    const ofPatient = await t.api.get(`${t.base}/invoice/patients/${patient}/invoices`);
    assert.deepEqual(ofPatient.body.content, [invoice]);
    const ofEncounter = await t.api.get(`${t.base}/invoice/patients/${patient}/encounters/${encounter}/invoices`);
    assert.deepEqual(ofEncounter.body.content, [invoice]);
    // A second drain makes no second invoice.
    await app.jobs.drain();
    assert.equal((await t.api.get(`${t.base}/invoice/invoices`)).body.totalElements, 1);
  });

  test('insurance, no services, or not finalized: no invoice', async () => {
    const { t, host, patient } = await setup();
    await finalized(t, patient, host, { responsibleParty: 'INSURANCE', visitServices: [{ name: 'initial-visit' }] });
    await finalized(t, patient, host, { responsibleParty: 'SELF_PAY' });
    const open = await t.api.post(`${t.base}/patients/${patient}/encounters`, {
      responsibleParty: 'SELF_PAY',
      visitServices: [{ name: 'initial-visit' }],
    });
    assert.equal(open.status, 201, open.text);
    await app.jobs.drain();
    assert.equal((await t.api.get(`${t.base}/invoice/invoices`)).body.totalElements, 0);
  });

  test('20 encounters finalized at once are numbered 1 to 20, no gap, no twin', async () => {
    const { t, patient } = await setup();
    const base = `${t.base}/patients/${patient}/encounters`;
    const ids: string[] = [];
    for (let index = 0; index < 20; index++) {
      const created = await t.api.post(base, { responsibleParty: 'SELF_PAY', visitServices: [{ name: 'follow-up' }] });
      for (const status of ['OPEN', 'ACTIVE']) await t.api.patch(`${base}/${created.body.id}`, { status });
      ids.push(created.body.id);
    }
    const moved = await Promise.all(ids.map((id) => t.api.patch(`${base}/${id}`, { status: 'FINALIZED' })));
    assert.ok(moved.every((response) => response.status === 200));
    // The jobs run concurrently, as a cluster's workers would.
    await Promise.all([app.jobs.drain(), app.jobs.drain(), app.jobs.drain(), app.jobs.drain()]);
    const all = (await t.api.get(`${t.base}/invoice/invoices?size=100&sort=customInvoiceId,asc`)).body.content;
    assert.deepEqual(
      all.map((invoice: { customInvoiceId: string }) => invoice.customInvoiceId),
      Array.from({ length: 20 }, (_, index) => `INV-${String(index + 1).padStart(6, '0')}`),
    );
    assert.deepEqual(new Set(all.map((invoice: { relatedEncounters: string[] }) => invoice.relatedEncounters[0])), new Set(ids));
  });

  test("paid with the patient's saved method: PAID; declined: PAYMENT_FAILED with the provider's words, then paid", async () => {
    const { t, host, patient } = await setup();
    await finalized(t, patient, host, { responsibleParty: 'SELF_PAY', visitServices: [{ name: 'initial-visit' }] });
    await app.jobs.drain();
    const invoice = (await t.api.get(`${t.base}/invoice/invoices`)).body.content[0];
    const pay = `${t.base}/invoice/invoices/${invoice.id}/pay`;
    assertCode(await t.api.post(pay), 400, 'PAYMENT_METHOD_MISSING');
    const methods = `${t.base}/payment/patients/${patient}/payment-methods`;
    assert.equal((await t.api.post(methods, { paymentMethodId: 'pm_card_chargeCustomerFail' })).status, 200);
    const failed = await t.api.post(pay);
    assert.equal(failed.status, 200, failed.text);
    assert.equal(failed.body.status, 'PAYMENT_FAILED');
    assert.equal(failed.body.statusMessage, 'Your card was declined.');
    assert.equal(failed.body.amountPaid, 0);
    assert.equal((await t.api.post(methods, { paymentMethodId: 'pm_card_visa' })).status, 200);
    const paid = await t.api.post(pay);
    assert.equal(paid.body.status, 'PAID');
    assert.equal(paid.body.statusMessage, null);
    assert.equal(paid.body.amountPaid, 15000);
    assert.ok(paid.body.paidAt);
    assertCode(await t.api.post(pay), 409, 'INVOICE_PAID');
    assertCode(await (await t.apiWith(['INVOICE_READ'])).post(pay), 403, 'ACCESS_DENIED');
    assertCode(await t.api.post(`${t.base}/invoice/invoices/${crypto.randomUUID()}/pay`), 404, 'INVOICE_NOT_FOUND');
    assert.deepEqual(
      (await t.api.get(`${t.base}/invoice/invoices?status=PAID`)).body.content.map((one: { id: string }) => one.id),
      [invoice.id],
    );
  });

  test('filters, sorts, 400s, 401, 403, 404, and another tenant sees none', async () => {
    const { t, host, patient } = await setup();
    await finalized(t, patient, host, { responsibleParty: 'SELF_PAY', visitServices: [{ name: 'initial-visit' }] });
    await app.jobs.drain();
    clock.advance(60_000);
    const other = (await createPatient(t, { firstName: 'Sam', lastName: 'Roe' })).id;
    await finalized(t, other, host, { responsibleParty: 'SELF_PAY', visitServices: [{ name: 'follow-up' }] });
    await app.jobs.drain();
    const url = `${t.base}/invoice/invoices`;
    const amounts = async (query: string) =>
      (await t.api.get(`${url}?${query}`)).body.content.map((invoice: { amount: number }) => invoice.amount);
    assert.deepEqual(await amounts(''), [8000, 15000]);
    assert.deepEqual(await amounts('sort=amount,desc'), [15000, 8000]);
    assert.deepEqual(await amounts(`patientId=${patient}`), [15000]);
    assert.deepEqual(await amounts('status=OPEN&size=1'), [8000]);
    assert.deepEqual(await amounts('status=PAID'), []);
    const first = (await t.api.get(url)).body.content[1];
    assert.deepEqual(await amounts(`dueBefore=${encodeURIComponent(first.dueDate)}`), []);
    assert.deepEqual(await amounts(`dueAfter=${encodeURIComponent(first.dueDate)}`), [8000, 15000]);
    assert.deepEqual(await amounts('dueAfter=2099-01-01T00:00:00Z'), []);

    assertValidation(await t.api.get(`${url}?size=1001`), 'querystring.size');
    assertValidation(await t.api.get(`${url}?status=LOST`), 'querystring.status');
    assertValidation(await t.api.get(`${url}?dueBefore=soon`), 'querystring.dueBefore');
    assertCode(await t.api.get(`${url}?sort=patient,asc`), 400, 'INVALID_SORT');
    assertValidation(await t.api.get(`${url}/not-an-id`), 'params.invoiceId');
    assertCode(await t.anonymous.get(url), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await (await t.apiWith(['PATIENT_READ'])).get(url), 403, 'ACCESS_DENIED');
    assert.equal((await (await t.apiWith(['INVOICE_READ'])).get(url)).status, 200);
    assertCode(await t.api.get(`${url}/${crypto.randomUUID()}`), 404, 'INVOICE_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/invoice/patients/${crypto.randomUUID()}/invoices`), 404, 'PATIENT_NOT_FOUND');
    const unknownEncounter = `${t.base}/invoice/patients/${patient}/encounters/${crypto.randomUUID()}/invoices`;
    assertCode(await t.api.get(unknownEncounter), 404, 'DT_RECORD_NOT_FOUND');

    const stranger = await createTestTenant(app, formation());
    assert.equal((await stranger.api.get(`${stranger.base}/invoice/invoices`)).body.totalElements, 0);
    assertCode(await stranger.api.get(`${stranger.base}/invoice/invoices/${first.id}`), 404, 'INVOICE_NOT_FOUND');
  });
});
