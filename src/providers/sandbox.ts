import type { Kysely } from 'kysely';
import { uuidv7 } from '../db/ids.ts';
import type { DB } from '../db/schema.ts';
import type { ChannelName } from './channels.ts';
import type { ProviderScope } from './slot.ts';

/**
 * The sandbox every channel's default driver sends into: a table, so every node of a cluster sees
 * the same outbox, which an operator (or a test) reads and tells what became of each message
 * (`/{tenant}/{instance}/sandbox/...`, `cairn sandbox ...`). Nothing leaves the machine.
 */

export interface SandboxEnv {
  db: Kysely<DB>;
  clock: { now(): Date };
}

export interface SandboxOutbound {
  channel: ChannelName;
  /** The id of Cairn's record of the message: a send that runs again is recorded once. */
  reference: string;
  /** The patient it is about (null for none): the outbox's answers name them in the access log. */
  patientId?: string | null;
  from: string;
  to: string;
  subject?: string | null;
  body?: string | null;
  attachmentNames?: string[];
}

/** Records a message as sent, ACCEPTED; answers its sandbox id (the provider's id of the message). */
export async function sandboxSend(env: SandboxEnv, scope: ProviderScope, message: SandboxOutbound): Promise<string> {
  const now = env.clock.now();
  const row = await env.db
    .insertInto('sandbox_messages')
    .values({
      tenant_id: scope.tenantId,
      instance_id: scope.instanceId,
      id: uuidv7(),
      channel: message.channel,
      reference: message.reference,
      patient_id: message.patientId ?? null,
      from_address: message.from,
      to_address: message.to,
      subject: message.subject ?? null,
      body: message.body ?? null,
      attachment_names: JSON.stringify(message.attachmentNames ?? []),
      status: 'ACCEPTED',
      error: null,
      created_at: now,
      updated_at: now,
    })
    // Sent again (its job ran twice): the first record stands, and answers.
    .onConflict((oc) => oc.columns(['tenant_id', 'channel', 'reference']).doUpdateSet({ reference: message.reference }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * The recording the sandbox gives a call it is told was recorded: a moment of silence, three
 * MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz: 417 bytes each), so every flow that stores and
 * serves a recording works with no vendor.
 */
export const SANDBOX_RECORDING: Buffer = (() => {
  const frame = Buffer.alloc(417);
  Buffer.from([0xff, 0xfb, 0x90, 0x64]).copy(frame);
  return Buffer.concat([frame, frame, frame]);
})();

/** The address the sandbox gives its recordings. */
export const SANDBOX_RECORDING_URL = 'sandbox:recording.mp3';

/** The document the sandbox gives a fax it is told came in: a one-page PDF with no marks on it. */
export const SANDBOX_FAX_DOCUMENT = Buffer.from(
  '%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj\n' +
    '3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n',
);

/** The address the sandbox gives its received faxes' documents. */
export const SANDBOX_FAX_URL = 'sandbox:fax.pdf';

/** A purged patient's messages in the sandbox's outbox: those of Cairn's records (`reference`), and those to or from their addresses. */
export async function forgetSandboxMessages(
  db: Kysely<DB>,
  scope: ProviderScope,
  which: { patientId?: string; references?: readonly string[]; addresses?: readonly string[] },
): Promise<void> {
  const references = which.references ?? [];
  const addresses = which.addresses ?? [];
  if (!which.patientId && references.length === 0 && addresses.length === 0) return;
  await db
    .deleteFrom('sandbox_messages')
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where((eb) =>
      eb.or([
        ...(which.patientId ? [eb('patient_id', '=', which.patientId)] : []),
        ...(references.length > 0 ? [eb('reference', 'in', references)] : []),
        ...(addresses.length > 0 ? [eb('to_address', 'in', addresses), eb('from_address', 'in', addresses)] : []),
      ]),
    )
    .execute();
}
