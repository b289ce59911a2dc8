import { createHash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { TenantContext } from '../../http/context.ts';
import type { Services } from '../../http/services.ts';
import type { Sealer } from '../../providers/sealed.ts';
import { ApiError } from '../../wire/errors.ts';
import { write } from '../../work/write.ts';
import {
  confirmFactor,
  deleteFactor,
  type FactorOwner,
  readFactor,
  replaceRecoveryCodes,
  saveUnconfirmedFactor,
  takeStep,
  useRecoveryCode,
} from './store.ts';

/**
 * A user's second factor (issue 41): a TOTP secret (RFC 6238) the user's authenticator app holds,
 * and ten recovery codes for when the phone is gone. The secret is sealed at rest (Cairn must compute
 * codes from it); recovery codes are kept as SHA-256 hashes and shown once. Times are the services'
 * clock's, so tests fix them and every node agrees with the database.
 */

/** RFC 6238's defaults, the ones every authenticator app reads from the otpauth:// URI. */
const TOTP_SHAPE = { issuer: 'Cairn', algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** One step either side: a phone's clock a little off, or a code typed as it turned (RFC 6238 §5.2). */
const WINDOW = 1;
const RECOVERY_CODES = 10;
const TOTP_CODE = /^\d{6}$/;

export interface TotpEnrollment {
  secret: string;
  otpauthUrl: string;
  /** The URI as a QR code, a PNG `data:` URL. */
  qrCode: string;
}

const ownerOf = (ctx: TenantContext, userId: string): FactorOwner => ({ tenantId: ctx.tenant.id, userId });

/**
 * A new secret, kept unconfirmed in place of any earlier unconfirmed one: it signs nothing in until
 * `confirmTotp`. 409 MFA_ALREADY_ENROLLED when the user's factor is confirmed.
 */
export async function startTotp(ctx: TenantContext, user: { id: string; username: string }): Promise<TotpEnrollment> {
  const totp = new TOTP({ ...TOTP_SHAPE, label: user.username, secret: new Secret({ size: 20 }) });
  const otpauthUrl = totp.toString();
  // Loaded on first use: the server's start-up does not pay for a QR encoder few requests need.
  const { toDataURL } = await import('qrcode');
  const qrCode = await toDataURL(otpauthUrl);
  const sealed = ctx.services.sealer.seal({ secret: totp.secret.base32 });
  await write(ctx, async (w) => {
    if (!(await saveUnconfirmedFactor(w.db, ownerOf(ctx, user.id), sealed))) throw new ApiError('MFA_ALREADY_ENROLLED');
  });
  return { secret: totp.secret.base32, otpauthUrl, qrCode };
}

/**
 * Confirms the started factor with a code from it, and answers the recovery codes, this once.
 * The confirming code's step is taken, so that code cannot also sign in.
 */
export async function confirmTotp(ctx: TenantContext, userId: string, code: string): Promise<string[]> {
  const owner = ownerOf(ctx, userId);
  return write(ctx, async (w) => {
    const factor = await readFactor(w.db, owner, { forUpdate: true });
    if (!factor) throw new ApiError('MFA_NOT_ENROLLED');
    if (factor.confirmedAt) throw new ApiError('MFA_ALREADY_ENROLLED');
    const step = stepOf(ctx.services.sealer, factor.totpSealed, code, w.now);
    if (step === undefined) throw new ApiError('INVALID_MFA_CODE');
    await confirmFactor(w.db, owner, step, w.now);
    const codes = newCodes();
    await replaceRecoveryCodes(w.db, owner, codes.map(recoveryHash));
    w.changed({ action: 'USER_MFA_ENROLLED', entityType: 'USER', entityId: userId });
    return codes;
  });
}

/** New recovery codes in place of the user's old ones (used or not), answered this once. */
export async function newRecoveryCodes(ctx: TenantContext, userId: string): Promise<string[]> {
  const owner = ownerOf(ctx, userId);
  return write(ctx, async (w) => {
    const factor = await readFactor(w.db, owner, { forUpdate: true });
    if (!factor?.confirmedAt) throw new ApiError('MFA_NOT_ENROLLED');
    const codes = newCodes();
    await replaceRecoveryCodes(w.db, owner, codes.map(recoveryHash));
    w.changed({ action: 'USER_MFA_RECOVERY_CODES_REPLACED', entityType: 'USER', entityId: userId });
    return codes;
  });
}

/**
 * Removes the user's factor, confirmed or not, and the recovery codes: the user then signs in with
 * the password alone. The user's own route uses it, and an administrator's may (index.ts).
 */
export async function removeSecondFactor(ctx: TenantContext, userId: string): Promise<void> {
  await write(ctx, async (w) => {
    if (!(await deleteFactor(w.db, ownerOf(ctx, userId)))) throw new ApiError('MFA_NOT_ENROLLED');
    w.changed({ action: 'USER_MFA_REMOVED', entityType: 'USER', entityId: userId });
  });
}

/** Whether the user has a confirmed factor (a sign-in reads it with the user: store.ts findUserForLogin). */
export async function hasSecondFactor(services: Services, owner: FactorOwner): Promise<boolean> {
  return Boolean((await readFactor(services.db, owner))?.confirmedAt);
}

/**
 * Whether `code` is the user's second factor now: a TOTP code within a step of the services' clock
 * whose step is later than the last one taken, or an unused recovery code. Either is taken in one
 * conditional statement, so a code works once even when two nodes check it at the same moment.
 * Outside the unit of work, as the token limits and SMART assertions' `jti`s are: a sign-in's own
 * bookkeeping, with no audit row or event.
 */
export async function checkSecondFactor(services: Services, owner: FactorOwner, code: string): Promise<boolean> {
  const now = services.clock.now();
  if (!TOTP_CODE.test(code)) return useRecoveryCode(services.db, owner, recoveryHash(code), now);
  const factor = await readFactor(services.db, owner);
  if (!factor?.confirmedAt) return false;
  const step = stepOf(services.sealer, factor.totpSealed, code, now);
  return step !== undefined && (await takeStep(services.db, owner, step));
}

/** The time step `code` belongs to within the window, or undefined when it is no code of the secret. */
function stepOf(sealer: Sealer, totpSealed: string, code: string, now: Date): number | undefined {
  // A secret sealed under another server secret cannot be opened: only recovery codes work then.
  const secret = sealer.open(totpSealed)?.secret;
  if (typeof secret !== 'string' || !TOTP_CODE.test(code)) return undefined;
  const timestamp = now.getTime();
  const delta = TOTP.validate({ ...TOTP_SHAPE, token: code, secret: Secret.fromBase32(secret), timestamp, window: WINDOW });
  return delta === null ? undefined : TOTP.counter({ period: TOTP_SHAPE.period, timestamp }) + delta;
}

/** Ten codes of 80 random bits each, as 16 base32 characters in groups of four: beyond guessing, even offline against their hashes. */
function newCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () =>
    new Secret({ size: 10 }).base32.toLowerCase().replace(/(.{4})(?!$)/g, '$1-'),
  );
}

/** A recovery code's hash, whatever its case and however it was split. */
function recoveryHash(code: string): string {
  return createHash('sha256').update(code.toLowerCase().replace(/[\s-]/g, '')).digest('hex');
}
