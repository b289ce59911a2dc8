import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Formation } from '../formation/schemas.ts';
import { consoleBrowser, skipBrowser } from '../test/console-browser.ts';
import { multipart, sampleFile } from '../test/files.ts';
import { createPatient } from '../test/harness.ts';
import { programs, publish } from '../test/programs.ts';

/**
 * The console's Patients pages in a browser: the list searched and paged, a patient added after a
 * field error, and a patient's page with every section filled from records made over the API
 * (care team, program and phase, care plan, task, document with a file downloaded through its
 * signed link, assessment, encounter, chat, SMS, email); a section the caller may not read says so.
 */
const { t, origin, open, signInAsClient, checkAccessibility, shoot } = await consoleBrowser();

const instancePhone = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e01', number: '+14155550100', default: true };
const current = (await t.api.get(`${t.base}/formations/current`)).body.formation as Formation;
await publish(t, {
  ...current,
  programs,
  instancePhones: [instancePhone],
  goalTemplates: [{ name: 'walk', goalName: 'Walk every day', type: 'LIFESTYLE', priority: 'HIGH' }],
  assessments: [
    {
      name: 'screen',
      title: 'Screening',
      sections: [
        {
          name: 'first',
          title: 'First',
          order: 1,
          fields: [{ name: 'mood', label: 'Mood', viewType: 'question', meta: { type: 'text', required: false } }],
        },
      ],
    },
  ] as never,
} as Formation);

async function ok<T = any>(response: Promise<{ status: number; body: T; text: string }>, status = 201): Promise<T> {
  const answered = await response;
  assert.equal(answered.status, status, answered.text);
  return answered.body;
}

/** A patient with one record of every kind the page shows, and `extra` namesakes to page through. */
async function seed(tag: string, extra: number) {
  const nurse = await ok(
    t.api.post(`${t.admin}/users`, {
      username: `nurse.${tag}`,
      email: `nurse.${tag}@example.org`,
      firstName: 'Nora',
      lastName: `Nurse${tag}`,
      roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
    }),
  );
  const phone = `+1415555${String(1000 + (Number(tag.replace(/\D/g, '')) % 9000)).padStart(4, '0')}`;
  const patient = await createPatient(t, {
    firstName: 'Ada',
    lastName: `Quill${tag}`,
    mrn: `MRN-${tag}`,
    birthDate: '1960-04-02',
    email: `ada.${tag}@example.org`,
    phone,
    careTeam: [{ id: nurse.id, pointOfContact: true }],
  });
  await Promise.all(
    Array.from({ length: extra }, (_, i) => createPatient(t, { firstName: `Extra${i}`, lastName: `Quill${tag}` })),
  );
  const base = `${t.base}/patients/${patient.id}`;
  await ok(t.api.patch(`${base}/programs/diabetes`, {}), 200);
  await ok(t.api.patch(`${base}/programs/diabetes/phases`, { phaseName: 'coaching' }), 200);
  await ok(t.api.post(`${base}/care-plan/overview`, { overview: 'Lives alone, walks daily' }), 200);
  await ok(t.api.post(`${base}/care-plan/goals`, { goalTemplateName: 'walk' }));
  await ok(
    t.api.post(`${t.base}/tasks`, {
      name: `Call about results ${tag}`,
      status: 'TODO',
      priority: 'HIGH',
      assignee: { id: nurse.id },
      patient: { id: patient.id },
    }),
  );
  const summary = await ok(t.api.post(`${base}/document-summary`, { type: 'doc-type-others' }));
  const { body, headers } = multipart([{ name: `letter-${tag}.pdf`, content: sampleFile('pdf', 400) }]);
  await ok(t.api.request('POST', `${base}/document-summary/${summary.id}/files`, body, headers));
  await ok(t.api.post(`${base}/assessment-records`, { assessmentName: 'screen' }));
  await ok(t.api.post(`${base}/encounters`, { title: `Check-in ${tag}` }));
  await ok(t.api.post(`${base}/chat/inbound`, { message: `Feeling better ${tag}` }), 200);
  await ok(
    t.api.post(`${t.base}/sandbox/inbound`, { channel: 'SMS', from: phone, to: instancePhone.number, message: `SMS ${tag}` }),
  );
  const draft = await ok(t.api.post(`${base}/email-drafts`, { subject: `Results ${tag}`, body: 'All clear' }));
  await ok(t.api.post(`${base}/email-drafts/${draft.id}/send`), 200);
  return { patient, nurse };
}

const section = (page: Page, name: string) => page.locator(`section[data-section="${name}"]`);

/** Signs in as `key` and opens the Patients page. */
async function toPatients(page: Page, key: string, secret: string) {
  await signInAsClient(page, key, secret);
  await page.getByRole('link', { name: 'Patients' }).click();
  await page.getByRole('heading', { name: 'Patients', level: 1 }).waitFor();
}

describe('the Patients pages in a browser', { skip: skipBrowser }, () => {
  for (const width of [1280, 390]) {
    test(`at ${width} px: search and page, a patient's sections, a document downloaded, a patient added`, async () => {
      const wide = width === 1280;
      const tag = `w${width}`;
      const { patient } = await seed(tag, 11);
      const { page, problems } = await open(width);
      await toPatients(page, t.adminClient.clientKey, t.adminClient.secret);

      // Search and page: 12 patients named Quill<tag>, 10 a page.
      await page.getByLabel('Name, phone, email, MRN or access code contains').fill(`Quill${tag}`);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Page 1 of 2 (12 in all)').waitFor();
      assert.equal(await page.locator('tr[data-patient]').count(), 10);
      await page.getByRole('navigation', { name: 'Patients pages' }).getByRole('button', { name: 'Next' }).click();
      await page.getByText('Page 2 of 2 (12 in all)').waitFor();
      assert.equal(await page.locator('tr[data-patient]').count(), 2);
      await page.getByLabel('Name, phone, email, MRN or access code contains').fill(`MRN-${tag}`);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Page 1 of 1 (1 in all)').waitFor();
      const row = page.locator(`tr[data-patient="${patient.id}"]`);
      assert.match((await row.textContent()) ?? '', /Diabetes management/);
      assert.match((await row.textContent()) ?? '', new RegExp(`Nora Nurse${tag}`));

      // A field error beside its field, then a patient added.
      await page.getByLabel('First name').fill('Grace');
      await page.getByLabel('Last name').fill(`Added${tag}`);
      await page.getByLabel('Email', { exact: true }).fill('not-an-email');
      await page.getByRole('button', { name: 'Add patient' }).click();
      await page.locator('[data-field-error="email"]').waitFor();
      assert.equal(await page.getByLabel('Email', { exact: true }).getAttribute('aria-invalid'), 'true');
      await page.getByLabel('Email', { exact: true }).fill(`grace.${tag}@example.org`);
      await page.getByRole('button', { name: 'Add patient' }).click();
      await page.getByText(`Grace Added${tag} was added`).waitFor();
      await checkAccessibility(page, `patients at ${width}`);
      if (wide) await shoot(page, 'patients');

      // The patient's page: a real link, followed by the console's navigation.
      const link = row.getByRole('link', { name: `Ada Quill${tag}` });
      assert.equal(await link.getAttribute('href'), `/console/patients/${patient.id}`);
      await link.click();
      await page.getByRole('heading', { name: `Ada Quill${tag}`, level: 1 }).waitFor();
      assert.equal(new URL(page.url()).pathname, `/console/patients/${patient.id}`);
      assert.match((await page.getByTestId('patient-facts').textContent()) ?? '', new RegExp(`1960-04-02.*MRN-${tag}`));

      const filled: [string, string][] = [
        ['Care team', `Nora Nurse${tag}`],
        ['Programs', 'Coaching'],
        ['Care plan', 'Walk every day'],
        ['Care plan', 'Lives alone, walks daily'],
        ['Tasks', `Call about results ${tag}`],
        ['Documents', `letter-${tag}.pdf`],
        ['Assessments', 'Screening'],
        ['Encounters', `Check-in ${tag}`],
        ['Messages', `Feeling better ${tag}`],
        ['Messages', `SMS ${tag}`],
        ['Messages', `Results ${tag}`],
      ];
      for (const [name, text] of filled) await section(page, name).getByText(text).first().waitFor();
      assert.equal(await page.getByRole('alert').count(), 0, (await page.getByRole('alert').allTextContents()).join());
      assert.equal(await page.locator('[aria-busy="true"]').count(), 0);

      // The document's link is signed: it answers without the token.
      const download = section(page, 'Documents').getByRole('link', { name: `Download letter-${tag}.pdf` });
      const href = await download.getAttribute('href');
      assert.ok(href?.startsWith(`${origin}/files/links/`), href ?? 'no link');
      const bytes = await fetch(href ?? '');
      assert.equal(bytes.status, 200);
      assert.match(Buffer.from(await bytes.arrayBuffer()).toString('latin1'), /^%PDF-/);

      await checkAccessibility(page, `patient at ${width}`);
      if (wide) await shoot(page, 'patient');

      // Back to the list by its link.
      await page.getByRole('link', { name: '← All patients' }).click();
      await page.getByRole('heading', { name: 'Patients', level: 1 }).waitFor();
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }

  test('a caller who may read patients only sees "Access denied" in the sections it may not read', async () => {
    const { patient } = await seed('denied', 0);
    const reader = await t.clientWithRole('patient-reader');
    const { page, problems } = await open(1280);
    await toPatients(page, reader.clientKey, reader.secret);
    await page.getByLabel('Name, phone, email, MRN or access code contains').fill('MRN-denied');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'Ada Quilldenied' }).click();
    await page.getByRole('heading', { name: 'Ada Quilldenied', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/console/patients/${patient.id}`);
    // The record's own care team shows; each other section answers its own 403.
    await section(page, 'Care team').getByText('Nora Nursedenied').waitFor();
    for (const name of ['Programs', 'Care plan', 'Tasks', 'Documents', 'Assessments', 'Encounters']) {
      await section(page, name).getByRole('alert').filter({ hasText: 'Access denied (403' }).waitFor();
    }
    const messages = section(page, 'Messages').getByRole('alert').filter({ hasText: 'Access denied (403' });
    await messages.nth(2).waitFor();
    assert.equal(await section(page, 'Care team').getByRole('alert').count(), 0);
    await checkAccessibility(page, 'patient sections denied');
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});
