import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** An unrecognized call that left a recording (the sandbox's; its fetch job run). */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, paths } = f;
    const call = await f.call('POST', `${paths.instance}/sandbox/inbound`, `${t.base}/sandbox/inbound`, {
      channel: 'VOICE_CALL',
      from: '+14155550177',
      to: '+14155550100',
      recorded: true,
    });
    f.ids.voiceCall = call.id;
    // Only the recording's job, not the whole queue: draining it would relay (consume) the tenant's events.
    await t.app.services.jobs.drain({ tenants: [t.tenant.id], kinds: ['voice.recording'] });
    const view = await t.api.get(`${t.base}/unrecognized-patients/voice-calls/${call.id}`);
    f.ids.recordingFile = view.body.recordingFile.id;
  },
  params: {
    voiceCallId: (f) => f.ids.voiceCall,
    fileId: (f, path) => (path.includes('/recordings/') ? f.ids.recordingFile : undefined),
  },
};
