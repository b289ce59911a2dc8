import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import type { TestApp } from './harness.ts';

/**
 * A TOTP second factor added over the API, as the user would (docs/identity.md "MFA"), for the tests
 * of the pages that ask for its code: its secret, its recovery codes, and the code an authenticator
 * shows `offsetMs` from now (the confirming code's step is spent: the next sign-in needs the next).
 */
export async function enrolTotp(app: TestApp, signIn: { tenantName: string; username: string; password: string }) {
  const post = async (url: string, payload: object) => {
    const response = await app.server.inject({ method: 'POST', url, payload });
    assert.ok(response.statusCode < 300, `${url}: ${response.statusCode} ${response.body}`);
    return JSON.parse(response.body);
  };
  const { secret } = (await post('/auth/mfa/totp', signIn)) as { secret: string };
  const codeAt = (offsetMs = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offsetMs });
  const { recoveryCodes } = (await post('/auth/mfa/totp/confirm', { ...signIn, totpCode: codeAt() })) as {
    recoveryCodes: string[];
  };
  return { secret, recoveryCodes, codeAt };
}
