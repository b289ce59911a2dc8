import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionResults } from 'oidc-provider';
import { settingsOf } from '../../../config.ts';
import { parseScope } from '../../../http/scopes.ts';
import type { Services } from '../../../http/services.ts';
import { spendVerificationTime, verifySecret } from '../../../tenancy/secrets.ts';
import { ApiError } from '../../../wire/errors.ts';
import { checkedAttempt, findUserForLogin, tokenLimitSettings } from '../../auth/index.ts';
import { enabledProviders } from '../sso/store.ts';
import { keepContext, launchOf } from './launch.ts';
import { type ConsentChoice, consentPage, errorPage, PAGE_CSP, type Picker, signInPage } from './pages.ts';
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

const actionOf = (server: InstanceServer, uid: string, step: 'login' | 'consent') =>
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
  const choices = await choicesOf(server, details);
  const picker = await pickerOf(services, server, request, details, choices, search);
  return sendPage(reply, 200, consentPage(actionOf(server, uid, 'consent'), appName, choices, picker));
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

/** The password sign-in, under the token routes' limits (wrong passwords slow down, then answer 429). */
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
  const { username = '', password = '' } = form;
  const user = username ? await findUserForLogin(services.db, server.tenant.id, username) : undefined;
  const subject = user && { tenantId: user.tenantId, principalId: user.id };
  const matches = async () =>
    user?.passwordHash
      ? (await verifySecret(password, user.passwordHash)) && user.mayUsePassword
      : spendVerificationTime(password);
  const limit = settingsOf(services.config, tokenLimitSettings);
  let ok: boolean;
  try {
    ok = await checkedAttempt(services.db, limit, services.clock.now(), { subject, source: request.ip, matches });
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) {
      reply.headers(error.headers);
      return sendPage(
        reply,
        429,
        await signInOf(services, server, uid, appName, 'Too many attempts: wait a few minutes, then try again.'),
      );
    }
    throw error;
  }
  if (!ok || !user) {
    return sendPage(reply, 401, await signInOf(services, server, uid, appName, 'The username or password is not right.'));
  }
  return finish(server, request, reply, { login: { accountId: user.id } });
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
