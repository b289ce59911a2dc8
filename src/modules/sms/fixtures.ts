import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** The SMS the communication send makes (communications/fixtures.ts); the vendor callbacks' driver. */
export const fixtures: AreaFixtures = {
  params: { smsId: (f) => f.ids.sms, driver: () => 'twilio' },
};
