import { Value } from 'typebox/value';
import { uuidv7 } from '../../db/ids.ts';
import type { Context } from '../../http/context.ts';
import type { Paging } from '../../http/pagination.ts';
import type { ChannelName, SandboxOutcome } from '../../providers/channels.ts';
import { SANDBOX_FAX_URL, SANDBOX_RECORDING_URL } from '../../providers/sandbox.ts';
import { ApiError, badField } from '../../wire/errors.ts';
import { isE164 } from '../../wire/formats.ts';
import { Email } from '../../wire/schemas.ts';
import type { InboundInput, SandboxMessageView } from './schemas.ts';
import { findSandboxMessage, listOutbox, type SandboxRow, settleMessage } from './store.ts';

/**
 * The sandbox of an instance's outside services (issue 16): what its sandbox drivers were given to
 * send, each message told what became of it (as a vendor's callback would), and messages made to
 * come in. Its routes exist for a channel only while the instance's provider for it is the sandbox.
 */

function view(row: SandboxRow): SandboxMessageView {
  return {
    id: row.id,
    channel: row.channel as ChannelName,
    reference: row.reference,
    patientId: row.patient_id,
    from: row.from_address,
    to: row.to_address,
    subject: row.subject,
    body: row.body,
    attachmentNames: row.attachment_names,
    status: row.status as SandboxMessageView['status'],
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The channels of this server whose provider for the instance is the sandbox. */
async function sandboxChannels(ctx: Context): Promise<ChannelName[]> {
  const names: ChannelName[] = [];
  for (const [name, handlers] of ctx.services.channels) {
    if ((await ctx.services.providers.driverName(handlers.slot, ctx.scope)) === 'sandbox') names.push(name);
  }
  return names;
}

async function requireSandbox(ctx: Context, channel: ChannelName): Promise<void> {
  if (!(await sandboxChannels(ctx)).includes(channel)) throw new ApiError('SANDBOX_NOT_IN_USE', { channel });
}

/** GET .../sandbox/outbox: what the sandbox was given to send, newest first. */
export async function sandboxOutbox(
  ctx: Context,
  filters: { channel?: ChannelName | undefined; status?: string | undefined },
  paging: Paging,
) {
  const inUse = await sandboxChannels(ctx);
  const channels = filters.channel ? inUse.filter((name) => name === filters.channel) : inUse;
  if (channels.length === 0) throw new ApiError('SANDBOX_NOT_IN_USE', { channel: filters.channel ?? null });
  const { rows, total } = await listOutbox(ctx.db, ctx.scope, { channels, status: filters.status }, paging);
  return { content: rows.map(view), total };
}

/** The status the sandbox's message takes when told each outcome. */
const settled: Record<SandboxOutcome, string> = { deliver: 'DELIVERED', bounce: 'BOUNCED', fail: 'FAILED' };

/**
 * POST .../sandbox/outbox/{id}/deliver|bounce|fail: the channel's area hears it as it would hear
 * the vendor (its `report`), then the sandbox keeps the outcome; a message is settled once (409).
 */
export async function settleSandboxMessage(
  ctx: Context,
  messageId: string,
  outcome: SandboxOutcome,
  error: string | undefined,
): Promise<SandboxMessageView> {
  const message = await findSandboxMessage(ctx.db, ctx.scope, messageId);
  if (!message) throw new ApiError('SANDBOX_MESSAGE_NOT_FOUND', { messageId });
  const channel = message.channel as ChannelName;
  await requireSandbox(ctx, channel);
  if (message.status !== 'ACCEPTED') throw new ApiError('SANDBOX_MESSAGE_SETTLED', { messageId, status: message.status });
  const reason =
    outcome === 'deliver' ? null : (error ?? (outcome === 'bounce' ? 'Bounced by the sandbox' : 'Failed in the sandbox'));
  // The record moves first (it only moves from where it was): a second settle then finds the message settled.
  const handlers = ctx.services.channels.get(channel);
  const status = handlers?.sandbox?.[outcome];
  if (status) await handlers?.report?.(ctx.services, ctx.scope, { externalId: message.id, status, error: reason });
  const row = await settleMessage(ctx.db, ctx.scope, message.id, settled[outcome], reason, ctx.services.clock.now());
  if (!row) throw new ApiError('SANDBOX_MESSAGE_SETTLED', { messageId });
  return view(row);
}

/** POST .../sandbox/inbound: a message as if the channel's provider handed it over (201). */
export async function injectInbound(ctx: Context, input: InboundInput) {
  const handlers = ctx.services.channels.get(input.channel);
  if (!handlers?.receive) throw new ApiError('CHANNEL_NOT_AVAILABLE', { channel: input.channel });
  await requireSandbox(ctx, input.channel);
  const valid = input.channel === 'EMAIL' ? (value: string) => Value.Check(Email, value) : isE164;
  const kind = input.channel === 'EMAIL' ? 'an email address' : 'an E.164 number';
  if (!valid(input.from)) throw badField('body.from', `must be ${kind}`);
  if (!valid(input.to)) throw badField('body.to', `must be ${kind}`);
  const received = await handlers.receive(ctx.services, ctx.scope, {
    from: input.from,
    to: input.to,
    message: input.message ?? null,
    subject: input.subject ?? null,
    recorded: input.recorded ?? false,
    recordingUrl: input.recorded ? SANDBOX_RECORDING_URL : null,
    documentUrl: input.channel === 'FAX' ? SANDBOX_FAX_URL : null,
    externalId: `sandbox-${uuidv7()}`,
  });
  return { channel: input.channel, ...received };
}
