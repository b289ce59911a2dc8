import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

/**
 * A server on the sandbox drivers loads no vendor's SDK: each is imported when a driver of its
 * vendor is made (together they held some 16 MB of every worker's heap, and 1,000 of its 3,500
 * modules). Nor mailparser (~5 MB), which the first inbound raw email loads. The app's module
 * graph is imported in a process of its own that records every module it loads; then a Twilio
 * driver is made there, which must load the SDK (so the recording sees one).
 */

const VENDOR = /\/node_modules\/(twilio|stripe|telnyx|@aws-sdk\/[^/]+|nodemailer|mailparser)\//;

const script = `
import module from 'node:module';
const loaded = [];
module.registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
const vendors = () => [...new Set(loaded.map((url) => ${VENDOR}.exec(url)?.[1]).filter(Boolean))].sort();
await import(new URL('src/app.ts', 'file://' + process.cwd() + '/').href);
await import(new URL('src/cli/serve.ts', 'file://' + process.cwd() + '/').href);
const atStart = vendors();
const { smsSlot } = await import(new URL('src/providers/sms/sms.ts', 'file://' + process.cwd() + '/').href);
await smsSlot.drivers.twilio.make({ accountSid: 'AC' + '0'.repeat(32), authToken: 'an-auth-token', baseUrl: 'https://api.twilio.com' }, {}, 'server');
process.stdout.write(JSON.stringify({ atStart, afterTwilio: vendors(), modules: loaded.length }));
`;

test('importing the app loads no vendor SDK and no mail parser; making a Twilio driver loads twilio', () => {
  const child = spawnSync(
    process.execPath,
    ['--experimental-transform-types', '--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  assert.equal(child.status, 0, child.stderr);
  const { atStart, afterTwilio, modules } = JSON.parse(child.stdout) as {
    atStart: string[];
    afterTwilio: string[];
    modules: number;
  };
  assert.ok(modules > 500, `only ${modules} modules recorded`);
  assert.deepEqual(atStart, []);
  assert.deepEqual(afterTwilio, ['twilio']);
});
