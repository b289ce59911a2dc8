import { Type } from 'typebox';
import type { AreaPlugin } from '../../http/plugin.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody } from '../../wire/schemas.ts';
import { confirmTotp, newRecoveryCodes, removeSecondFactor, startTotp } from './mfa.ts';
import { signedInContext, userSignIn } from './sign-in.ts';

/** A one-time code as `/auth/token` and these routes take it. */
export const MfaCode = Type.String({
  minLength: 6,
  maxLength: 64,
  description:
    'A one-time code: the 6 digits the authenticator app shows, or an unused recovery code. ' +
    'Required once the user has a confirmed second factor; ignored before.',
});

/** The user's own sign-in: these routes take no bearer token. */
const signInFields = {
  tenantName: Type.String({ minLength: 1, maxLength: 100, description: "The user's tenant" }),
  username: Type.String({ minLength: 1, maxLength: 200 }),
  password: Type.String({ minLength: 1, maxLength: 500 }),
  code: Type.Optional(MfaCode),
};
const SignInBody = Type.Object(signInFields, {
  description: 'The user signs in as for `/auth/token`: password, and `code` once the factor is confirmed.',
});
const ConfirmBody = Type.Object(
  {
    ...signInFields,
    totpCode: Type.String({ pattern: '^[0-9]{6}$', description: 'A code the authenticator app shows for the new secret' }),
  },
  { description: 'The sign-in, and a code from the secret being confirmed.' },
);

const TotpEnrollment = Type.Object({
  secret: Type.String({ description: 'The shared secret, base32, for typing into an authenticator app' }),
  otpauthUrl: Type.String({ description: 'The otpauth:// URI (issuer Cairn, the username as label; SHA-1, 6 digits, 30 s)' }),
  qrCode: Type.String({ description: 'The URI as a QR code: a PNG `data:` URL, to show as an image' }),
});
const RecoveryCodes = Type.Object({
  recoveryCodes: Type.Array(Type.String(), {
    minItems: 10,
    maxItems: 10,
    description: 'Ten codes, each good for one sign-in in place of a TOTP code. Shown this once: Cairn keeps only their hashes.',
  }),
});

const tags = ['Authentication'];
const errors = { 400: ErrorBody, 401: ErrorBody, 409: ErrorBody, 429: ErrorBody };
const signIn =
  'Signed in by the body: `tenantName`, `username`, `password` and, once the factor is confirmed, `code` ' +
  '(401 INVALID_USER_CREDENTIALS, MFA_REQUIRED or INVALID_MFA_CODE, under the same limits as `/auth/token`: 429).';

/**
 * A user's own second factor (docs/identity.md "MFA"). No bearer token opens these: the user signs in
 * with each request, as for a token, so a user whose password alone no longer signs in can still
 * manage the factor with a code.
 */
const mfaRoutes: AreaPlugin = async (app, { services }) => {
  // A tenant requiring a factor still lets a user without one sign in here: to add it.
  const signedInUser = userSignIn(services, { enrolling: true });

  app.post(
    '/auth/mfa/totp',
    {
      schema: {
        tags,
        summary: 'Start a TOTP second factor: a new secret, unconfirmed until a code from it is sent (201)',
        description: `${signIn} A secret started earlier and never confirmed is replaced. 409 MFA_ALREADY_ENROLLED once confirmed.`,
        security: [],
        body: SignInBody,
        response: { 201: TotpEnrollment, ...errors },
      },
    },
    async (request, reply) => {
      const signedIn = await signedInUser(request.body, request.ip);
      const enrollment = await startTotp(signedInContext(services, request, signedIn), signedIn.user);
      reply.code(201);
      return enrollment;
    },
  );

  app.post(
    '/auth/mfa/totp/confirm',
    {
      schema: {
        tags,
        summary: 'Confirm the TOTP second factor with a code from it; answers ten recovery codes, this once',
        description: `${signIn} From then on \`/auth/token\` needs \`code\` too. 401 INVALID_MFA_CODE for a wrong \`totpCode\`; 409 MFA_NOT_ENROLLED before a start, MFA_ALREADY_ENROLLED after a confirmation.`,
        security: [],
        body: ConfirmBody,
        response: { 200: RecoveryCodes, ...errors },
      },
    },
    async (request) => {
      const signedIn = await signedInUser(request.body, request.ip);
      const recoveryCodes = await confirmTotp(
        signedInContext(services, request, signedIn),
        signedIn.user.id,
        request.body.totpCode,
      );
      return { recoveryCodes };
    },
  );

  app.post(
    '/auth/mfa/recovery-codes',
    {
      schema: {
        tags,
        summary: 'Replace the recovery codes with ten new ones, answered this once',
        description: `${signIn} The old codes, used or not, stop working. 409 MFA_NOT_ENROLLED without a confirmed factor.`,
        security: [],
        body: SignInBody,
        response: { 200: RecoveryCodes, ...errors },
      },
    },
    async (request) => {
      const signedIn = await signedInUser(request.body, request.ip);
      return { recoveryCodes: await newRecoveryCodes(signedInContext(services, request, signedIn), signedIn.user.id) };
    },
  );

  app.post(
    '/auth/mfa/totp/remove',
    {
      schema: {
        tags,
        summary: 'Remove the second factor and the recovery codes (204)',
        description: `${signIn} The password alone signs in again. 409 MFA_NOT_ENROLLED when there is no factor.`,
        security: [],
        body: SignInBody,
        response: { 204: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const signedIn = await signedInUser(request.body, request.ip);
      await removeSecondFactor(signedInContext(services, request, signedIn), signedIn.user.id);
      return reply.code(204).send();
    },
  );
};

export default mfaRoutes;
