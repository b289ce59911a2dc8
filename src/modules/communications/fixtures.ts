import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A communication id for an SMS to the patient, and an SMS sent through it (the sandbox takes it). */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, paths } = f;
    const { communicationId } = await f.call('POST', `${paths.instance}/communications`, `${t.base}/communications`, {
      channel: 'SMS',
      patientContactId: f.ids.patient,
      patientContactPhoneNumber: '+14155550187',
    });
    f.ids.communication = communicationId;
    const sms = await f.call(
      'POST',
      `${paths.instance}/{communicationId}/messages`,
      `${t.base}/${encodeURIComponent(communicationId)}/messages`,
      { message: `Your appointment is tomorrow ${f.marker}` },
    );
    f.ids.sms = sms.id;
  },
  params: { communicationId: (f) => f.ids.communication },
};
