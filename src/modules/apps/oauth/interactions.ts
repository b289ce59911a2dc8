import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionResults } from 'oidc-provider';
import { parseScope } from '../../../http/scopes.ts';
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
import { enabledProviders } from '../sso/store.ts';
import { OAuthRecords } from './adapter.ts';
import { CONSOLE_CLIENT_ID } from './console.ts';
import { keepContext, launchOf } from './launch.ts';
import {
  type ConsentChoice,
  codePage,
  consentPage,
  enrolPage,
  errorPage,
  PAGE_CSP,
  type Picker,
  recoveryCodesPage,
  signInPage,
} from './pages.ts';
import { mayHavePatient, patientChoices } from './picker.ts';
import { interactionPath, REFRESH_TOKEN_SECONDS } from './provider.ts';
import { asksForPatient, covers, grantable, IDENTITY_SCOPES, registeredResourceScopes } from './scopes.ts';
import type { InstanceServer } from './servers.ts';

/**
 * The pages of an authorization request (oidc-provider's "interactions"): sign in, then allow what
 * the app asks (or less). Each answer goes back to oidc-provider, which redirects to the app.
 */

type Details = Awaited<ReturnType<InstanceServer['provider']['interactionDetails']>>;

export function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('cache-control', 'no-store')
    .send(body);
}

const actionOf = (server: InstanceServer, uid: string, step: 'login' | 'code' | 'consent') =>
  `${new URL(server.issuer).pathname}${interactionPath(uid)}/${step}`;

/** Far above a tenant's real number of identity providers: the buttons a page can hold. */
const MAX_SIGN_IN_OPTIONS = 20;

/** The sign-in page, with a button for each identity provider the tenant enabled (single sign-on, sso/). */
async function signInOf(services: Services, server: InstanceServer, uid: string, appName: string, error?: string) {
  const providers = await enabledProviders(services.db, server.tenant.id, MAX_SIGN_IN_OPTIONS);
  const base = `${new URL(server.issuer).pathname}${interactionPath(uid)}`;
  const options = providers.map((provider) => ({ name: provider.name, href: `${base}/sso/${provider.id}` }));
  return signInPage(actionOf(server, uid, 'login'), appName, error, options);
}

async function appNameOf(server: InstanceServer, details: Details): Promise<string> {
  const client = await server.provider.Client.find(String(details.params.client_id ?? ''));
  return client?.clientName ?? 'An app';
}

/** The details of this browser's interaction, which must be the one the URL names. */
export async function interactionOf(server: InstanceServer, request: FastifyRequest, reply: FastifyReply, uid: string) {
  const details = await server.provider.interactionDetails(request.raw, reply.raw);
  if (details.uid !== uid) throw new Error('interaction mismatch');
  return details;
}

export async function showInteraction(
  services: Services,
  server: InstanceServer,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
  search = '',
) {
  const details = await interactionOf(server, request, reply, uid);
  const appName = await appNameOf(server, details);
  if (details.prompt.name === 'login') return sendPage(reply, 200, await signInOf(services, server, uid, appName));
  if (details.params.client_id === CONSOLE_CLIENT_ID && details.session?.accountId) {
    return consoleConsent(server, request, reply, details, details.session.accountId);
  }
  const choices = await choicesOf(server, details);
  const picker = await pickerOf(services, server, request, details, choices, search);
  return sendPage(reply, 200, consentPage(actionOf(server, uid, 'consent'), appName, choices, picker));
}

/** Cairn's own console asks no consent (console.ts): the user signs in to it, and it gets what it always asks. */
async function consoleConsent(
  server: InstanceServer,
  request: FastifyRequest,
  reply: FastifyReply,
  details: Details,
  accountId: string,
) {
  const { provider } = server;
  const grant =
    (details.grantId && (await provider.Grant.find(details.grantId))) ||
    new provider.Grant({ accountId, clientId: CONSOLE_CLIENT_ID });
  const client = await provider.Client.find(CONSOLE_CLIENT_ID);
  grant.addOIDCScope(client?.scope ?? 'openid');
  const claims = (details.prompt.details.missingOIDCClaims as string[] | undefined) ?? [];
  if (claims.length > 0) grant.addOIDCClaims(claims);
  return finish(server, request, reply, { consent: { grantId: await grant.save() } });
}

/**
 * The patient picker of a standalone launch (picker.ts): shown when what the app asks needs a
 * patient and no EHR launch names one.
 */
async function pickerOf(
  services: Services,
  server: InstanceServer,
  request: FastifyRequest,
  details: Details,
  choices: readonly ConsentChoice[],
  search: string,
): Promise<Picker | undefined> {
  const accountId = details.session?.accountId;
  if (!accountId || typeof details.params.launch === 'string') return undefined;
  if (!asksForPatient(choices.map((choice) => choice.scope))) return undefined;
  const patients = await patientChoices(services, server, request, accountId, search.trim());
  return { searchAction: `${new URL(server.issuer).pathname}${interactionPath(details.uid)}`, search, patients };
}

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

/** The user's answer: allow what they left checked (never more than offered), or deny. */
export async function consent(
  services: Services,
  server: InstanceServer,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
  form: { decision?: string; scope?: string | string[]; patient?: string },
) {
  const details = await interactionOf(server, request, reply, uid);
  if (details.prompt.name !== 'consent' || !details.session?.accountId) {
    return sendPage(reply, 400, errorPage('invalid_request', 'Sign in first.'));
  }
  if (form.decision !== 'allow') {
    return finish(server, request, reply, { error: 'access_denied', error_description: 'The user did not allow the app' });
  }
  const choices = await choicesOf(server, details);
  const offered = new Set(choices.map((choice) => choice.scope));
  const checked = [form.scope ?? []].flat().filter((scope) => offered.has(scope));
  const launchId = typeof details.params.launch === 'string' ? details.params.launch : undefined;
  const accountId = details.session.accountId;
  // A standalone launch asking for a patient: the one picked, which the user must be able to read.
  let picked: string | undefined;
  if (!launchId && asksForPatient(checked)) {
    picked = typeof form.patient === 'string' ? form.patient : '';
    if (!(await mayHavePatient(services, server, accountId, picked))) {
      const picker = await pickerOf(services, server, request, details, choices, '');
      const page = consentPage(
        actionOf(server, uid, 'consent'),
        await appNameOf(server, details),
        choices,
        picker,
        'Choose a patient.',
      );
      return sendPage(reply, 400, page);
    }
  }
  const { provider } = server;
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session.accountId, clientId: String(details.params.client_id) });
  if (!grant) return sendPage(reply, 400, errorPage('invalid_request', 'This request has expired: start again from the app.'));
  // What the user unchecked is rejected, so oidc-provider does not ask again for it.
  const isIdentity = (scope: string) => IDENTITY_SCOPES.includes(scope);
  const unchecked = [...offered].filter((scope) => !checked.includes(scope));
  const identity = checked.filter(isIdentity);
  // openid is not the user's to refuse: without it there is no sign-in at all.
  if (
    String(details.params.scope ?? '')
      .split(' ')
      .includes('openid')
  )
    identity.push('openid');
  grant.addOIDCScope(identity.join(' '));
  if (unchecked.some(isIdentity)) grant.rejectOIDCScope(unchecked.filter(isIdentity).join(' '));
  const claims = (details.prompt.details.missingOIDCClaims as string[] | undefined) ?? [];
  if (claims.length > 0) grant.addOIDCClaims(claims);
  const resources = checked.filter((scope) => !isIdentity(scope));
  if (resources.length > 0) grant.addResourceScope(server.issuer, resources.join(' '));
  const refused = unchecked.filter((scope) => !isIdentity(scope));
  if (refused.length > 0) grant.rejectResourceScope(server.issuer, refused.join(' '));
  // An EHR launch: the patient it names becomes the grant's context, if the launch is this app's and this user's.
  const where = { tenantId: server.tenant.id, instanceId: server.instance.id };
  const now = () => services.clock.now();
  let patient = picked;
  if (launchId) {
    const launch = await launchOf(services.db, where, now, launchId, String(details.params.client_id));
    if (!launch || (launch.userId !== null && launch.userId !== accountId)) {
      return finish(server, request, reply, {
        error: 'access_denied',
        error_description: 'The launch has expired, or is for another app or another user',
      });
    }
    patient = launch.patient;
  }
  const grantId = await grant.save();
  if (patient) await keepContext(services.db, where, now, grantId, patient, REFRESH_TOKEN_SECONDS);
  return finish(server, request, reply, { consent: { grantId } });
}

/** The interaction's answer to oidc-provider (a sign-in, a consent, or an error), and the browser sent on. */
export async function finish(server: InstanceServer, request: FastifyRequest, reply: FastifyReply, result: InteractionResults) {
  const to = await server.provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: true });
  return reply.code(303).header('cache-control', 'no-store').redirect(to);
}

/** What the consent page offers: each scope asked for that the app registered and Cairn grants, in words. */
async function choicesOf(server: InstanceServer, details: Details): Promise<ConsentChoice[]> {
  const client = await server.provider.Client.find(String(details.params.client_id ?? ''));
  const identity = (client?.scope ?? '').split(' ');
  const resources = registeredResourceScopes(client);
  const asked = String(details.params.scope ?? '')
    .split(' ')
    .filter(Boolean);
  return asked
    .filter((scope) => scope !== 'openid')
    .filter((scope) =>
      IDENTITY_SCOPES.includes(scope)
        ? identity.includes(scope)
        : grantable(scope) && resources.some((entry) => covers(entry, scope)),
    )
    .map((scope) => ({ scope, meaning: meaningOf(scope) }));
}

const IDENTITY_MEANINGS: Record<string, string> = {
  fhirUser: 'Know who you are in the care record',
  profile: 'See your name',
  offline_access: 'Keep access when you are not using it',
  online_access: 'Keep access while you are signed in',
  launch: 'Open with the patient on your screen',
  'launch/patient': 'Ask which patient to open',
};

function meaningOf(scope: string): string {
  const known = IDENTITY_MEANINGS[scope];
  if (known) return known;
  const parsed = parseScope(scope);
  const what = `${parsed?.type === '*' ? 'every kind of record' : `${parsed?.type ?? scope} records`}${parsed?.context === 'patient' ? ' of the patient chosen' : ''}`;
  const how = (parsed?.interactions ?? []).map((i) => (i === 'r' ? 'read' : 'search')).join(' and ');
  return `${how ? `${how[0]?.toUpperCase()}${how.slice(1)}` : 'Use'} ${what} you may see`;
}
