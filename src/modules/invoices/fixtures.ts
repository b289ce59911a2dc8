import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** An invoice: a SELF_PAY encounter with a visit service, finalized, and the job that bills it. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, paths, formation } = f;
    const service = formation.visitServices?.[0];
    if (!service) return;
    const url = `${t.base}/patients/${f.ids.patient}/encounters`;
    const encounter = await f.call('POST', `${paths.patient}/encounters`, url, {
      title: `Billed ${f.marker}`,
      responsibleParty: 'SELF_PAY',
      visitServices: [{ name: service.name }],
    });
    for (const status of ['OPEN', 'ACTIVE', 'FINALIZED']) {
      await f.call('PATCH', `${paths.patient}/encounters/{encounterId}`, `${url}/${encounter.id}`, { status });
    }
    // Only the invoice's job, not the whole queue: draining it would relay (consume) the tenant's events.
    await t.app.services.jobs.drain({ tenants: [t.tenant.id], kinds: ['invoices.generate'] });
    const invoices = await t.api.get(`${t.base}/invoice/patients/${f.ids.patient}/encounters/${encounter.id}/invoices`);
    f.ids.invoice = invoices.body.content[0].id;
  },
  params: {
    invoiceId: (f) => f.ids.invoice,
  },
};
