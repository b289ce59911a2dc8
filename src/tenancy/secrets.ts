import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import os from 'node:os';
import { promisify } from 'node:util';
import pLimit from 'p-limit';

const scryptRun = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

/**
 * At most this many scrypt runs at once in a process (CAIRN_SCRYPT_CONCURRENCY): each holds 32 MiB
 * and a thread of libuv's pool (4 by default, shared with file reads and DNS) for ~60 ms, so a burst
 * of sign-ins queues here rather than spend the process's memory budget and the whole pool.
 */
const scryptSlots = pLimit(2);

export function setScryptConcurrency(concurrency: number): void {
  scryptSlots.concurrency = concurrency;
}

/**
 * CAIRN_SCRYPT_CONCURRENCY for each of `processes` serving processes: as set, or by default (0) the
 * machine's cores shared among them, 1 or 2 each. A hash is CPU alone, so more at once than cores
 * only adds memory (32 MiB each): with 2 workers on 2 cores, 1 each gave as many tokens a second as
 * 2 each, and a worker's peak fell from 218-220 to 185-186 MB (2026-12-03).
 */
export function scryptConcurrencyFor(setting: number, processes: number, cores = os.availableParallelism()): number {
  return setting > 0 ? setting : Math.min(2, Math.max(1, Math.floor(cores / processes)));
}

const scryptAsync = (password: string, salt: Buffer, keylen: number, options: object) =>
  scryptSlots(() => scryptRun(password, salt, keylen, options));

/**
 * scrypt with N=2^15 (OWASP's minimum for scrypt) takes ~60 ms on one core and 32 MiB, so a
 * leaked table of hashes is expensive to attack. It runs on libuv's thread pool, not the
 * event loop.
 */
const COST = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(secret, salt, KEY_LENGTH, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: COST.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

/** A hash of nothing in particular: checking against it makes an unknown key cost as much as a known one. */
let decoy: Promise<string> | undefined;
export async function spendVerificationTime(secret: string): Promise<false> {
  decoy ??= hashSecret(randomBytes(16).toString('hex'));
  await verifySecret(secret, await decoy);
  return false;
}

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function newClientKey(): string {
  return randomBytes(18).toString('base64url');
}
