import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Formation } from '../formation/schemas.ts';
import { consoleBrowser, skipBrowser } from '../test/console-browser.ts';

/**
 * The console's formation page in a browser (console/src/pages/Formation.tsx): the current version,
 * the draft edited as JSON (a syntax error caught before the API, the API's validation errors beside
 * the text), two versions diffed side by side, publishing, and the lock-out guard's refusal.
 * The tests share one tenant and run in order: each reads the version it starts from.
 */
const { t, open, signInAsClient, checkAccessibility, shoot } = await consoleBrowser();

async function current(): Promise<{ version: number; formation: Formation }> {
  const response = await t.api.get(`${t.base}/formations/current`);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

describe('the formation page in a browser', { skip: skipBrowser }, () => {
  for (const width of [1280, 390]) {
    test(`at ${width} px: the current version, the draft edited and saved, the diff, publish`, async () => {
      const wide = width === 1280;
      const before = (await current()).version;
      const { page, problems } = await open(width);
      let puts = 0;
      page.on('request', (request) => {
        if (request.method() === 'PUT') puts++;
      });
      await signInAsClient(page, t.adminClient.clientKey, t.adminClient.secret);
      await page.getByRole('link', { name: 'Formation' }).click();
      await page.getByRole('heading', { name: 'Formation', level: 1 }).waitFor();
      await page
        .getByTestId('current-version')
        .filter({ hasText: `Version ${before}` })
        .waitFor();

      const text = page.getByLabel('Draft document (JSON)');
      const draft = JSON.parse(await text.inputValue()) as Formation;
      const note = page.locator('[data-field-error="draft"]');

      // A JSON syntax error is shown beside the text, and the API is not called.
      await text.fill('{ "territories": ');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await note.filter({ hasText: 'Not valid JSON' }).waitFor();
      assert.equal(await text.getAttribute('aria-invalid'), 'true');
      assert.equal(puts, 0, 'no PUT for a syntax error');

      // The API's validation error names the field, beside the text.
      await text.fill(JSON.stringify({ ...draft, territories: 'everywhere' }));
      await page.getByRole('button', { name: 'Save draft' }).click();
      await note.filter({ hasText: 'territories' }).waitFor();
      assert.equal(puts, 1);
      await checkAccessibility(page, `formation, draft refused at ${width}`);

      // A small change saved: one territory more.
      const territory = { name: `north-${width}`, title: `North ${width}`, territories: ['alaska'] };
      const changed: Formation = { ...draft, territories: [...(draft.territories ?? []), territory] };
      await text.fill(JSON.stringify(changed, null, 2));
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByText('The draft was saved').waitFor();
      assert.equal(await text.getAttribute('aria-invalid'), null);
      const saved = await t.api.get(`${t.base}/formations/draft`);
      assert.deepEqual(saved.body.formation.territories.at(-1), territory);

      // The diff of the current version and the draft shows it, marked as added.
      assert.equal(await page.getByLabel('From (left)').inputValue(), String(before));
      assert.equal(await page.getByLabel('To (right)').inputValue(), 'draft');
      const diff = page.getByTestId('diff');
      await diff.locator('ins', { hasText: `"name": "north-${width}"` }).waitFor();
      assert.match((await page.getByTestId('diff-count').textContent()) ?? '', /^\d+ changed lines: \d+ added, \d+ removed\.$/);
      assert.equal(await diff.locator('del', { hasText: 'north' }).count(), 0, 'nothing about it removed');
      const region = page.getByRole('region', { name: `Differences between version ${before} and the draft` });
      assert.equal(await region.getAttribute('tabindex'), '0', 'the diff scrolls by keyboard');

      // Publish, after a confirm step: the next version becomes current. One axe run covers the page
      // as it loaded, the diff and the confirm step, all on screen at once.
      await page.getByRole('button', { name: 'Publish the draft…' }).click();
      await page.getByRole('heading', { name: `Publish the draft as version ${before + 1}?` }).waitFor();
      await checkAccessibility(page, `formation: current, draft, diff and confirm at ${width}`);
      if (wide) await shoot(page, 'formation');
      await page.getByRole('button', { name: `Publish version ${before + 1}` }).click();
      await page
        .getByTestId('publish-done')
        .filter({ hasText: `Version ${before + 1} was published` })
        .waitFor();
      await page
        .getByTestId('current-version')
        .filter({ hasText: `Version ${before + 1}` })
        .waitFor();
      const now = await current();
      assert.equal(now.version, before + 1);
      assert.deepEqual(now.formation.territories?.at(-1), territory);
      // The two published versions compare as the current one and the draft did.
      await page.getByLabel('From (left)').selectOption(String(before));
      await page.getByLabel('To (right)').selectOption(String(before + 1));
      await diff.locator('ins', { hasText: `"name": "north-${width}"` }).waitFor();
      assert.equal(await page.getByRole('alert').count(), 0, (await page.getByRole('alert').allTextContents()).join());
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }

  test('publishing a draft that takes FORMATION_WRITE from the caller shows the lock-out guard', async () => {
    // An editor holding FORMATION_WRITE only through its role; the draft takes the permission from that role.
    const start = await current();
    const withEditor: Formation = {
      ...start.formation,
      securityPolicies: [
        ...(start.formation.securityPolicies ?? []),
        { name: 'formation-editing', permissions: ['FORMATION_READ', 'FORMATION_WRITE'] },
      ],
      roles: [...(start.formation.roles ?? []), { name: 'formation-editor', policies: ['formation-editing'] }],
    };
    assert.equal((await t.api.put(`${t.base}/formations/draft`, withEditor)).status, 200);
    assert.equal((await t.api.post(`${t.base}/formations/draft/publish`)).status, 200);
    const editor = await t.clientWithRole('formation-editor');
    const withoutWrite: Formation = {
      ...withEditor,
      securityPolicies: withEditor.securityPolicies?.map((policy) =>
        policy.name === 'formation-editing' ? { ...policy, permissions: ['FORMATION_READ'] } : policy,
      ),
    };
    assert.equal((await t.api.put(`${t.base}/formations/draft`, withoutWrite)).status, 200);
    const version = start.version + 1;

    const { page, problems } = await open(390);
    await signInAsClient(page, editor.clientKey, editor.secret);
    await page.getByRole('link', { name: 'Formation' }).click();
    await page
      .getByTestId('current-version')
      .filter({ hasText: `Version ${version}` })
      .waitFor();
    // By keyboard: the confirm step takes the focus, and Enter publishes.
    await page.getByRole('button', { name: 'Publish the draft…' }).click();
    await page
      .getByRole('button', { name: `Publish version ${version + 1}` })
      .and(page.locator(':focus'))
      .waitFor();
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert').filter({ hasText: 'The draft was not published' });
    await alert.waitFor();
    const said = (await alert.textContent()) ?? '';
    assert.match(said, /lock callers out/);
    assert.match(said, /securityPolicies/);
    assert.match(said, /would take FORMATION_WRITE from the caller publishing it/);
    await checkAccessibility(page, 'formation lock-out at 390');
    assert.equal((await current()).version, version, 'nothing was published');
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});
