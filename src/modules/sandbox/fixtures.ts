import { sandboxSend } from '../../providers/sandbox.ts';
import type { AreaFixtures } from '../../test/route-fixtures.ts';

/**
 * A message in the sandbox's outbox: the email the email area sent, as its send job hands it over
 * (put there directly: draining the queue here would also relay, and so consume, the tenant's
 * events other tests read); and an email made to come in.
 */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t } = f;
    f.ids.sandboxMessage = await sandboxSend(
      t.app.services,
      { tenantId: t.tenant.id, instanceId: t.instance.id },
      {
        channel: 'EMAIL',
        reference: f.ids.email ?? '',
        from: 'care-team@sandbox.invalid',
        to: `patient-${f.marker}@example.org`,
        subject: `Results ${f.marker}`,
        body: 'All clear',
      },
    );
    await f.call('POST', `${f.paths.instance}/sandbox/inbound`, `${t.base}/sandbox/inbound`, {
      channel: 'EMAIL',
      from: `stranger-${f.marker}@example.org`,
      to: 'care-team@sandbox.invalid',
      subject: `Hello ${f.marker}`,
      message: 'Is anyone there?',
    });
  },
  params: { messageId: (f) => f.ids.sandboxMessage },
};
