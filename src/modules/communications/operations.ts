import type { FastifyRequest } from 'fastify';
import { Value } from 'typebox/value';
import { uuidv7 } from '../../db/ids.ts';
import type { Work } from '../../events/work.ts';
import { phonesFor } from '../../formation/phones.ts';
import { disclose } from '../../http/access-log.ts';
import type { Context } from '../../http/context.ts';
import { attachFiles } from '../../records/attachments.ts';
import { withPatient } from '../../records/patient-scope.ts';
import { recipientOf } from '../../records/recipients.ts';
import { ApiError, validationError } from '../../wire/errors.ts';
import { deliverEmail, EMAIL_FILES, emailFrom, emailViews, recordOutboundEmail } from '../email/index.ts';
import { deliverSms, recordOutboundSms, SMS_FILES, smsViews } from '../sms/index.ts';
import { callerPhone, callViews, placeCall, recordOutboundCall } from '../voice/index.ts';
import { type CommunicationChannel, type CommunicationInputBody, MessageInput, type MessageInputBody } from './schemas.ts';

/**
 * The two-step communication send (002 "Communications", DECISIONS §8). Step one checks the
 * request and answers it encoded, signed and URL-safe, as `communicationId`: nothing is stored
 * and nothing is sent. Step two sends a message through that id: the record is stored, then handed
 * to the instance's provider at once; a provider failure answers 500 PROVIDER_FAILED and leaves the
 * record FAILED. An id is good only in the tenant and instance that issued it.
 */

interface Communication {
  kind: 'communication';
  tenantId: string;
  instanceId: string;
  channel: CommunicationChannel;
  patientContactId: string;
  phoneId: string | null;
  number: string | null;
  email: string | null;
}

/**
 * The phone an SMS or a call goes from: the one named, else the default, among the instance's phones
 * that send on the channel (a phone whose `capabilities` leave the channel out is no phone for it).
 */
async function instancePhone(ctx: Context, id: string | null, channel: 'SMS' | 'VOICE_CALL') {
  const phones = phonesFor(await ctx.formation(), channel);
  const phone = id ? phones.find((candidate) => candidate.id === id) : phones.find((candidate) => candidate.default);
  if (!phone) throw new ApiError('NO_INSTANCE_PHONE', { instancePhoneId: id });
  return phone;
}

/** POST /communications: `{communicationId}`. */
export async function createCommunication(ctx: Context, body: CommunicationInputBody): Promise<{ communicationId: string }> {
  const { patient, contact } = await recipientOf(ctx, body.patientContactId);
  let phoneId: string | null = null;
  let number: string | null = null;
  let email: string | null = null;
  if (body.channel === 'EMAIL') {
    email = body.patientContactEmail ?? (contact ? contact.email : patient.email);
  } else {
    phoneId = (await instancePhone(ctx, body.instancePhoneId ?? null, body.channel)).id;
    number = body.patientContactPhoneNumber ?? (contact ? contact.phone : patient.phone);
  }
  if (!email && !number)
    throw new ApiError('NO_CONTACT_ADDRESS', { channel: body.channel, patientContactId: body.patientContactId });
  const communication: Communication = {
    kind: 'communication',
    tenantId: ctx.scope.tenantId,
    instanceId: ctx.scope.instanceId,
    channel: body.channel,
    patientContactId: body.patientContactId,
    phoneId,
    number,
    email,
  };
  return { communicationId: ctx.services.pageTokens.sign(communication) };
}

function readCommunication(ctx: Context, communicationId: string): Communication {
  let communication: Communication;
  try {
    communication = ctx.services.pageTokens.read<Communication>(communicationId);
  } catch {
    throw new ApiError('INVALID_COMMUNICATION_ID', {});
  }
  const valid =
    communication.kind === 'communication' &&
    communication.tenantId === ctx.scope.tenantId &&
    communication.instanceId === ctx.scope.instanceId;
  if (!valid) throw new ApiError('INVALID_COMMUNICATION_ID', {});
  return communication;
}

/** The fields each channel needs (002): SMS a message (or a file), EMAIL a message and a subject. */
function checkFields(channel: CommunicationChannel, body: MessageInputBody, files: number): void {
  const missing = (path: string) => ({ path: `body.${path}`, message: `required for ${channel}` });
  const problems = [];
  if (channel === 'SMS' && !body.message && files === 0) problems.push(missing('message'));
  if (channel === 'EMAIL' && !body.message) problems.push(missing('message'));
  if (channel === 'EMAIL' && !body.subject) problems.push(missing('subject'));
  if (problems.length > 0) throw validationError(problems);
}

/** The JSON body, checked; or the multipart form's text fields, read the same way. */
function bodyOf(fields: Record<string, unknown>): MessageInputBody {
  const body = {
    ...fields,
    ...(typeof fields.secure === 'string' ? { secure: fields.secure === 'true' } : {}),
    ...(typeof fields.recorded === 'string' ? { recorded: fields.recorded === 'true' } : {}),
  };
  if (!Value.Check(MessageInput, body)) {
    const problems = [...Value.Errors(MessageInput, body)].map((error) => ({
      path: `body${error.instancePath.replaceAll('/', '.')}`,
      message: error.message,
    }));
    throw validationError(problems);
  }
  return body;
}

/** POST /{communicationId}/messages: the SMS or email record made (201), as its provider left it. */
export async function sendCommunication(ctx: Context, request: FastifyRequest, communicationId: string, origin: string) {
  const communication = readCommunication(ctx, communicationId);
  const recipient = await recipientOf(ctx, communication.patientContactId);
  // The record made shows the patient's message: the access log names them.
  disclose(request, [recipient.patient.id]);
  const { channel } = communication;
  // Checked again: the formation may have changed since step one.
  const phone = channel === 'EMAIL' ? null : await instancePhone(ctx, communication.phoneId, channel);
  // Read before the write, which holds the connection (one, on the embedded database).
  const from = channel === 'EMAIL' ? await emailFrom(ctx) : '';
  if (channel === 'VOICE_CALL') {
    if (request.isMultipart()) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {}, 'A call takes JSON: {recorded}');
    const body = bodyOf((request.body ?? {}) as Record<string, unknown>);
    const userPhone = await callerPhone(ctx);
    const call = await withPatient(ctx, recipient.patient.id, (w) =>
      recordOutboundCall(w, ctx, {
        id: uuidv7(),
        recipient,
        to: communication.number ?? '',
        phone: phone as { id: string; number: string },
        userPhone,
        recorded: body.recorded ?? false,
      }),
    );
    const [view] = await callViews(ctx, [await placeCall(ctx, call)], origin);
    return view as NonNullable<typeof view>;
  }
  const id = uuidv7();
  const record = (w: Work, body: MessageInputBody, files: number): Promise<unknown> => {
    checkFields(channel, body, files);
    return channel === 'SMS'
      ? recordOutboundSms(w, ctx, {
          id,
          recipient,
          to: communication.number ?? '',
          phone: phone as { id: string; number: string },
          message: body.message ?? '',
          attachmentsFromTemplate: body.attachmentsFromTemplate ?? [],
        })
      : recordOutboundEmail(w, ctx, {
          id,
          recipient,
          from,
          to: communication.email ?? '',
          subject: body.subject ?? null,
          body: body.message ?? null,
          bodyType: 'PLAIN_TEXT',
          secure: body.secure ?? false,
          scheduledAt: null,
          attachmentsFromTemplate: body.attachmentsFromTemplate ?? [],
        });
  };
  const row = request.isMultipart()
    ? await attachFiles(
        ctx,
        request,
        {
          kind: channel === 'SMS' ? SMS_FILES : EMAIL_FILES,
          id,
          patientId: recipient.patient.id,
          keyPrefix: `${ctx.tenant.name}/${ctx.instance.name}/patients/${recipient.patient.id}/${channel === 'SMS' ? 'sms' : 'emails'}`,
        },
        (w, files, fields) => record(w, bodyOf(fields), files.length),
        { field: 'attachmentsAsFiles', optional: true },
      )
    : await withPatient(ctx, recipient.patient.id, (w) => record(w, bodyOf((request.body ?? {}) as Record<string, unknown>), 0));
  return deliverAndShow(ctx, channel, row, origin);
}

async function deliverAndShow(ctx: Context, channel: CommunicationChannel, row: unknown, origin: string) {
  if (channel === 'SMS') {
    const sent = await deliverSms(ctx, row as Parameters<typeof deliverSms>[1]);
    const [view] = await smsViews(ctx, [sent], origin);
    return view as NonNullable<typeof view>;
  }
  const sent = await deliverEmail(ctx, row as Parameters<typeof deliverEmail>[1]);
  const [view] = await emailViews(ctx, [sent], origin);
  return view as NonNullable<typeof view>;
}
