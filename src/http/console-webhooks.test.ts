import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { consoleBrowser, skipBrowser } from '../test/console-browser.ts';
import { startReceiver } from '../test/receiver.ts';

/**
 * The console's webhooks page in a browser (see console.test.ts): a subscription made through the
 * page (a field error first, then its signing secret shown once), its secret rotated, a failed
 * delivery seen among its attempts and sent again with Retry, then delivered; the subscription
 * deleted after a confirmation. axe-core on the list and the deliveries at 1280 and 390 px.
 */
// The receivers listen on loopback, which webhooks reach only with private addresses allowed.
const { app, t, open, signInAsClient, checkAccessibility, shoot } = await consoleBrowser({
  env: { CAIRN_WEBHOOKS_ALLOW_PRIVATE: 'true' },
});

describe('the console: webhooks and their deliveries', { skip: skipBrowser }, () => {
  for (const width of [1280, 390]) {
    test(`at ${width} px: create (secret once), rotate, a FAILED delivery retried then DELIVERED, delete`, async () => {
      const wide = width === 1280;
      const receiver = await startReceiver(200);
      receiver.answer(500);
      const name = `console-hook-${width}`;
      const { page, problems } = await open(width);
      await signInAsClient(page, t.adminClient.clientKey, t.adminClient.secret);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();

      // The API's field error sits beside the field.
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/hook`);
      await page.getByLabel('Entities', { exact: true }).fill('PATIENT, NO_SUCH_ENTITY');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.locator('[data-field-error="eventEntities"]').waitFor();
      assert.equal(await page.getByLabel('Entities', { exact: true }).getAttribute('aria-invalid'), 'true');

      // Created: the signing secret is shown once.
      await page.getByLabel('Entities', { exact: true }).fill('PATIENT');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.locator('[data-testid="secret"], [role="alert"]').first().waitFor();
      assert.equal(await page.getByRole('alert').count(), 0, (await page.getByRole('alert').allTextContents()).join());
      const secret = await page.getByTestId('secret-value').textContent();
      assert.match(secret ?? '', /^whsec_/);
      await page.getByRole('button', { name: 'Done' }).click();
      const row = page.locator(`tr[data-webhook="${name}"]`);
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /Entities: PATIENT/);

      // Rotated: a new secret, shown once.
      await page.getByRole('button', { name: `Rotate secret of ${name}` }).click();
      await page.getByRole('heading', { name: `New signing secret of ${name}` }).waitFor();
      const rotated = await page.getByTestId('secret-value').textContent();
      assert.ok(rotated && rotated !== secret, 'a new secret');
      await page.getByRole('button', { name: 'Done' }).click();
      await checkAccessibility(page, `webhooks at ${width}`);
      if (wide) await shoot(page, 'webhooks');

      // An event; the receiver answers 500 to its first attempt.
      const patient = await t.api.post(`${t.base}/patients`, { firstName: 'Webhook', lastName: `Width${width}` });
      assert.equal(patient.status, 201, patient.text);
      await app.jobs.drain();
      assert.equal(receiver.received.length, 1);
      // The deliveries page shows the FAILED attempt; Retry sends the delivery waiting out its backoff now.
      await page.getByRole('link', { name: `Deliveries of ${name}` }).click();
      await page.getByRole('heading', { name: `Deliveries of ${name}`, level: 1 }).waitFor();
      const failed = page.locator('tr[data-status="FAILED"]');
      await failed.waitFor();
      assert.match((await failed.textContent()) ?? '', /PATIENT_CREATED.*FAILED.*500 INTERNAL_SERVER_ERROR/);
      await checkAccessibility(page, `deliveries at ${width}`);
      await failed.getByRole('button', { name: /^Retry/ }).click();
      await failed.getByTestId('retried').filter({ hasText: 'Queued again (PENDING)' }).waitFor();
      await page.getByText('The PATIENT_CREATED delivery is queued to be sent again (PENDING)').waitFor();

      // Sent again (the receiver answers 200 now): the list, refreshed, shows it DELIVERED.
      await app.jobs.drain();
      assert.equal(receiver.received.length, 2);
      await page.getByRole('button', { name: 'Refresh' }).click();
      const delivered = page.locator('tr[data-status="DELIVERED"]');
      await delivered.waitFor();
      assert.match((await delivered.textContent()) ?? '', /200 OK/);
      assert.equal(await failed.getByRole('button', { name: /^Retry/ }).count(), 0, 'a delivered delivery is not retried');
      if (wide) await shoot(page, 'deliveries');
      await page.getByLabel('Status').selectOption('FAILED');
      await page.locator('tr[data-status="DELIVERED"]').waitFor({ state: 'detached' });
      await failed.waitFor();

      // Back to the list: deleted, after a confirmation.
      await page.getByRole('link', { name: 'All webhooks' }).click();
      await row.waitFor();
      await page.getByRole('button', { name: `Delete ${name}` }).click();
      await page.getByRole('button', { name: `Keep ${name}` }).click();
      await page.getByRole('button', { name: `Delete ${name}` }).click();
      await page.getByRole('button', { name: `Confirm deleting ${name}` }).click();
      await page.getByText(`${name} was deleted`).waitFor();
      await row.waitFor({ state: 'detached' });
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }
});
