import { Readable } from 'node:stream';
import type { Static } from 'typebox';
import { ProviderError } from '../channels.ts';
import { type TwilioOptions, twilioFailure } from '../sms/twilio.ts';
import { twilioAccess } from '../twilio.ts';
import type { VoiceDriver } from './driver.ts';

type Options = Static<typeof TwilioOptions>;

/** Twilio's CallStatus in DECISIONS §8's words. */
const statuses: Record<string, string> = {
  queued: 'QUEUED',
  initiated: 'QUEUED',
  ringing: 'RINGING',
  'in-progress': 'IN_PROGRESS',
  answered: 'IN_PROGRESS',
  completed: 'COMPLETED',
  busy: 'BUSY',
  'no-answer': 'NO_ANSWER',
  failed: 'FAILED',
  canceled: 'CANCELED',
};
const events = ['initiated', 'ringing', 'answered', 'completed'];

/**
 * Calls through Twilio's Calls API with the `twilio` SDK: the member's phone first, then, from
 * TwiML Cairn writes, the patient's (`<Dial><Number>`), recorded from answer when asked. Both legs
 * report to `<public>/<tenant>/<instance>/providers/voice/twilio/status?leg=…`, recordings to
 * `…/recording`; a call to an instance phone reaches `…/inbound` and is answered with a voicemail.
 */
export async function twilioVoice(options: Record<string, unknown>): Promise<VoiceDriver> {
  const o = options as Options;
  const { sdk: twilio, client, signed } = await twilioAccess(o);
  return {
    async call(_scope, call) {
      const response = new twilio.twiml.VoiceResponse();
      const dial = response.dial({
        callerId: call.from,
        ...(call.record ? { record: 'record-from-answer-dual' as const } : {}),
        ...(call.record && call.callbackBase ? { recordingStatusCallback: `${call.callbackBase}/twilio/recording` } : {}),
      });
      dial.number(
        call.callbackBase
          ? { statusCallback: `${call.callbackBase}/twilio/status?leg=child`, statusCallbackEvent: events as never }
          : {},
        call.to,
      );
      try {
        const placed = await client.calls.create({
          to: call.userPhone,
          from: call.from,
          twiml: response.toString(),
          ...(call.callbackBase
            ? { statusCallback: `${call.callbackBase}/twilio/status?leg=parent`, statusCallbackEvent: events }
            : {}),
        });
        return { externalId: placed.sid, status: statuses[placed.status] ?? 'QUEUED' };
      } catch (error) {
        throw twilioFailure(error);
      }
    },
    async fetchRecording(url) {
      // Twilio serves a recording's media at its URL plus the format, to the account's credentials.
      const response = await fetch(url.endsWith('.mp3') ? url : `${url}.mp3`, {
        headers: { authorization: `Basic ${Buffer.from(`${o.accountSid}:${o.authToken}`).toString('base64')}` },
      }).catch(() => null);
      if (!response?.ok || !response.body) {
        throw new ProviderError(
          'TWILIO_RECORDING',
          `Twilio did not give the recording (${response?.status ?? 'no answer'})`,
          false,
        );
      }
      return Readable.fromWeb(response.body as never);
    },
    callbacks: {
      verify: (request) => signed(request.url, request.headers['x-twilio-signature'] as string, request.params),
      inbound: (params) => ({
        from: params.From ?? '',
        to: params.To ?? '',
        externalId: params.CallSid ?? '',
        status: 'IN_PROGRESS',
      }),
      answerInbound: (callbackBase) => {
        const response = new twilio.twiml.VoiceResponse();
        response.say('Please leave a message after the tone.');
        response.record({ maxLength: 300, playBeep: true, recordingStatusCallback: `${callbackBase}/twilio/recording` });
        return { contentType: 'text/xml', body: response.toString() };
      },
      status: (params) => ({
        // A child leg reports its own sid and its parent's: the call is found by the parent's.
        externalId: params.ParentCallSid || params.CallSid || '',
        status: statuses[params.CallStatus ?? ''] ?? 'QUEUED',
        details: {
          leg: params.ParentCallSid ? 'child' : 'parent',
          ...(params.ParentCallSid ? { childCallSid: params.CallSid } : {}),
          ...(params.CallDuration ? { duration: Number(params.CallDuration) } : {}),
        },
      }),
      recording: (params) => ({
        externalId: params.CallSid ?? '',
        recordingSid: params.RecordingSid ?? '',
        url: params.RecordingUrl ?? '',
        durationSeconds: Number(params.RecordingDuration ?? 0),
      }),
      answer: { contentType: 'text/xml', body: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>' },
    },
  };
}
