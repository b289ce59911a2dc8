import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../../http/services.ts';
import { ApiError } from '../../../wire/errors.ts';
import {
  confirmationSignIn,
  findUserForLogin,
  secondFactorSignIn,
  signedInContext,
  startTotp,
  userSignIn,
} from '../../auth/index.ts';
import { OAuthRecords } from './adapter.ts';
import { actionOf, appNameOf, finish, interactionOf, sendPage, signInOf } from './interaction.ts';
import { codePage, enrolPage, recoveryCodesPage } from './pages.ts';
import type { InstanceServer } from './servers.ts';

/**
 * Cairn's sign-in page's answers: the password (as `/auth/token` takes it), then the code of a
 * second factor, or the factor added where the tenant requires one.
 */

/** A page's answer to a refusal of the token limits (429, its Retry-After) or of the sign-in; other errors go on. */
async function refusalPage(error: unknown, reply: FastifyReply, page: (message: string) => string | Promise<string>) {
  if (!(error instanceof ApiError)) throw error;
  if (error.status === 429) {
    reply.headers(error.headers);
    return sendPage(reply, 429, await page('Too many attempts: wait a few minutes, then try again.'));
  }
  if (error.errorCode === 'INVALID_USER_CREDENTIALS') {
    return sendPage(reply, 401, await page('The username or password is not right.'));
  }
  throw error;
}

/**
 * The password sign-in, as `/auth/token`'s (auth's userSignIn: under the token limits, wrong
 * passwords slow down, then answer 429). A user with a second factor is asked for a code next, on
 * a page of its own: the sign-in waits five minutes under the interaction (SECOND_FACTOR_SECONDS),
 * and nothing is granted until the code is right.
 */
export async function signIn(
  services: Services,
  server: InstanceServer,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
  form: { username?: string; password?: string },
) {
  const details = await interactionOf(server, request, reply, uid);
  const appName = await appNameOf(server, details);
  const page = (message: string) => signInOf(services, server, uid, appName, message);
  const { username = '', password = '' } = form;
  try {
    const { user } = await userSignIn(services)({ tenantName: server.tenant.name, username, password }, request.ip);
    return finish(server, request, reply, { login: { accountId: user.id } });
  } catch (error) {
    const waitsFor = error instanceof ApiError ? error.errorCode : undefined;
    if (waitsFor === 'MFA_REQUIRED' || waitsFor === 'MFA_ENROLLMENT_REQUIRED') {
      const user = await findUserForLogin(services.db, server.tenant.id, username);
      if (!user) throw error;
      const enrolling = waitsFor === 'MFA_ENROLLMENT_REQUIRED';
      await pendingSignIns(services, server).upsert(uid, { userId: user.id, username, enrolling }, SECOND_FACTOR_SECONDS);
      const action = actionOf(server, uid, 'code');
      if (!enrolling) return sendPage(reply, 200, codePage(action, appName));
      // The tenant requires a factor the user has none of: they add it here, then go on.
      const enrolment = await startTotp(signedInContext(services, request, { tenant: server.tenant, user }), user);
      return sendPage(reply, 200, enrolPage(action, appName, enrolment));
    }
    return refusalPage(error, reply, page);
  }
}

/** How long a right password waits for its code. */
export const SECOND_FACTOR_SECONDS = 5 * 60;

/** Sign-ins whose password was right, waiting for their code: an authorization server's records, by interaction. */
const pendingSignIns = (services: Services, server: InstanceServer) =>
  new OAuthRecords(services.db, { tenantId: server.tenant.id, instanceId: server.instance.id }, 'SecondFactor', () =>
    services.clock.now(),
  );

interface PendingSignIn {
  userId: string;
  username: string;
  /** Adding a first factor (the tenant requires one): the code confirms it. */
  enrolling?: boolean;
  /** Added: the recovery codes were shown, the next post goes on. */
  added?: boolean;
}

/**
 * The code page's answer: a right code (TOTP or recovery) signs the user in; a wrong one counts as
 * a wrong password. While enrolling, the code confirms the new factor and its recovery codes are
 * shown once; the page's next post goes on.
 */
export async function signInWithCode(
  services: Services,
  server: InstanceServer,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
  form: { code?: string },
) {
  const details = await interactionOf(server, request, reply, uid);
  const appName = await appNameOf(server, details);
  const pending = pendingSignIns(services, server);
  const waiting = (await pending.find(uid)) as PendingSignIn | undefined;
  if (!waiting?.userId) {
    return sendPage(reply, 400, await signInOf(services, server, uid, appName, 'The sign-in took too long: sign in again.'));
  }
  const action = actionOf(server, uid, 'code');
  const page = (message: string) => codePage(action, appName, message);
  const code = (form.code ?? '').trim();
  if (waiting.added) {
    await pending.destroy(uid);
    return finish(server, request, reply, { login: { accountId: waiting.userId } });
  }
  try {
    if (waiting.enrolling) {
      const user = await findUserForLogin(services.db, server.tenant.id, waiting.username);
      if (!user || user.id !== waiting.userId) throw new ApiError('INVALID_USER_CREDENTIALS');
      const ctx = signedInContext(services, request, { tenant: server.tenant, user });
      const recoveryCodes = await confirmationSignIn(services)(ctx, user.id, code, request.ip);
      if (!recoveryCodes) return sendPage(reply, 401, page('The code is not right: enter the code your app shows for Cairn.'));
      await pending.upsert(uid, { ...waiting, added: true }, SECOND_FACTOR_SECONDS);
      return sendPage(reply, 200, recoveryCodesPage(action, recoveryCodes));
    }
    const owner = { tenantId: server.tenant.id, userId: waiting.userId };
    if (!(await secondFactorSignIn(services)(owner, code, request.ip)))
      return sendPage(reply, 401, page('The code is not right.'));
  } catch (error) {
    return refusalPage(error, reply, page);
  }
  await pending.destroy(uid);
  return finish(server, request, reply, { login: { accountId: waiting.userId } });
}
