import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { consoleBrowser, skipBrowser } from '../test/console-browser.ts';
import { createPatient } from '../test/harness.ts';

/**
 * The console's access log in a browser (see console.test.ts): a patient read over the API shows
 * in the patient's Access history (paged to its row) and on the tenant's Access log
 * filtered by patient and caller; a caller without ACCESS_LOG_READ reads a plain sentence saying
 * so, not an error. axe-core on each at 1280 and 390 px.
 */
const { t, open, signInAsClient, checkAccessibility } = await consoleBrowser();

const READ_PATIENT = 'GET /:tenantName/:instanceName/patients/:patientId';
const section = (page: Page, name: string) => page.locator(`section[data-section="${name}"]`);
/** Until nothing on the page is loading (every section has answered). */
const idle = (page: Page) => page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });

/** A patient read once by the admin client over the API, and the access record that read wrote. */
async function readPatient(tag: string) {
  // Made by another client, whose create's answer (recorded too) the caller filter leaves out.
  const creator = await t.apiWith(['PATIENT_CREATE']);
  const patient = await createPatient(t, { firstName: 'Ada', lastName: `Logged${tag}` }, creator);
  const read = await t.api.get(`${t.base}/patients/${patient.id}`);
  assert.equal(read.status, 200, read.text);
  const log = await t.api.get(`${t.admin}/access-log?patientId=${patient.id}`);
  assert.equal(log.status, 200, log.text);
  const record = (log.body.data as { id: string; requestId: string }[]).find(
    (row) => row.requestId === read.headers['x-request-id'],
  );
  assert.ok(record, 'the read wrote an access record');
  return { patient, record };
}

/** Opens the console at the patient's page as `key`, once every section has loaded. */
async function openPatient(width: number, patientId: string, name: string, key: string, secret: string) {
  const opened = await open(width, { path: `patients/${patientId}` });
  await signInAsClient(opened.page, key, secret);
  await opened.page.getByRole('heading', { name, level: 1 }).waitFor();
  await idle(opened.page);
  return opened;
}

describe('the console: the access log', { skip: skipBrowser }, () => {
  for (const width of [1280, 390]) {
    test(`at ${width} px: a read in the patient's Access history and on the tenant's Access log`, async () => {
      const tag = `w${width}`;
      const { patient, record } = await readPatient(tag);
      // Another admin client views, so its own reads (also logged) are told apart from the API's.
      const viewer = await t.clientWithRole('admin');
      const { page, problems } = await openPatient(width, patient.id, `Ada Logged${tag}`, viewer.clientKey, viewer.secret);

      // Newest first: the console's own reads of the page lead; Refresh counts every one of them.
      const history = section(page, 'Access history');
      await history.getByRole('button', { name: 'Refresh the history' }).click();
      await idle(page);
      await history.locator(`tr[data-actor="${viewer.id}"]`).first().waitFor();
      // The API's read came before the page opened: among the oldest rows, paged to.
      const row = history.locator(`tr[data-access="${record.id}"]`);
      const next = history.getByRole('navigation', { name: 'Access history pages' }).getByRole('button', { name: 'Next' });
      while ((await row.count()) === 0 && (await next.count()) > 0 && (await next.isEnabled())) {
        const shown = await history.getByText(/^Page \d+ of/).textContent();
        await next.click();
        await history
          .getByText(/^Page \d+ of/)
          .filter({ hasNotText: shown ?? '' })
          .waitFor();
      }
      await row.waitFor();
      const seen = (await row.textContent()) ?? '';
      for (const part of [`API_CLIENT:${t.adminClient.name}`, READ_PATIENT, 'PATIENT', '200 seen', '127.0.0.1']) {
        assert.ok(seen.includes(part), `${part} in ${seen}`);
      }
      assert.equal(await page.getByRole('alert').count(), 0, (await page.getByRole('alert').allTextContents()).join());
      await checkAccessibility(page, `access history at ${width}`);

      // The tenant's log: a malformed id is the API's field error beside its field.
      await page.getByRole('link', { name: 'Access log' }).click();
      await page.getByRole('heading', { name: 'Access log', level: 1 }).waitFor();
      await page.getByLabel('Patient id').fill('not-an-id');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.locator('[data-field-error="patientId"]').waitFor();
      // Filtered by patient and caller: the API's read alone.
      await page.getByLabel('Patient id').fill(patient.id);
      await page.getByLabel('Caller id').fill(t.adminClient.id);
      await page.getByRole('button', { name: 'Filter' }).click();
      const logged = page.locator(`tr[data-access="${record.id}"]`);
      await logged.waitFor();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();
      assert.equal(await page.locator('tbody tr').count(), 1);
      const listed = (await logged.textContent()) ?? '';
      for (const part of [READ_PATIENT, patient.id, '200 seen']) assert.ok(listed.includes(part), `${part} in ${listed}`);
      assert.equal(await page.getByRole('alert').count(), 0);
      await checkAccessibility(page, `access log at ${width}`);
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }

  test('a caller without ACCESS_LOG_READ reads that it is not allowed, on both pages', async () => {
    const { patient } = await readPatient('denied');
    const reader = await t.clientWithRole('patient-reader');
    const { page, problems } = await openPatient(1280, patient.id, 'Ada Loggeddenied', reader.clientKey, reader.secret);
    const history = section(page, 'Access history');
    const said = /not allowed to see the access log: it needs the ACCESS_LOG_READ permission/;
    await history.getByTestId('not-allowed').filter({ hasText: said }).waitFor();
    assert.equal(await history.getByRole('alert').count(), 0, 'a refusal is not shown as a failure');
    assert.equal(await history.locator('table').count(), 0);
    await checkAccessibility(page, 'access history not allowed');

    await page.getByRole('link', { name: 'Access log' }).click();
    await page.getByRole('heading', { name: 'Access log', level: 1 }).waitFor();
    await page.getByTestId('not-allowed').filter({ hasText: said }).waitFor();
    assert.equal(await page.getByRole('alert').count(), 0);
    assert.equal(await page.getByTestId('empty').count(), 0);
    await checkAccessibility(page, 'access log not allowed');
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});
