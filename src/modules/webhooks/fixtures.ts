import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A subscription to the patient's events, to a receiver nobody runs (its deliveries fail, which changes nothing here). */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const webhook = await f.call('POST', `${f.paths.admin}/webhooks`, `${f.t.admin}/webhooks`, {
      name: `${f.marker}-hook`,
      title: `Hook ${f.marker}`,
      url: `https://${f.marker}.example/hook`,
      eventEntities: ['PATIENT'],
    });
    f.ids.webhook = webhook.id;
  },
  params: { webhookId: (f) => f.ids.webhook },
};
