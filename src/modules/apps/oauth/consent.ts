import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseScope } from '../../../http/scopes.ts';
import type { Services } from '../../../http/services.ts';
import { CONSOLE_CLIENT_ID } from './console.ts';
import { interactionPath, REFRESH_TOKEN_SECONDS } from './endpoints.ts';
import { actionOf, appNameOf, type Details, finish, interactionOf, sendPage, signInOf } from './interaction.ts';
import { keepContext, launchOf } from './launch.ts';
import { type ConsentChoice, consentPage, errorPage, type Picker } from './pages.ts';
import { mayHavePatient, patientChoices } from './picker.ts';
import { asksForPatient, covers, grantable, IDENTITY_SCOPES, registeredResourceScopes } from './scopes.ts';
import type { InstanceServer } from './servers.ts';

/**
 * The page an authorization request shows (the sign-in, until the user is signed in; then the
 * consent, with the patient picker of a standalone launch), and the user's answer to the consent:
 * allow what they left checked (or less than asked), or deny. Cairn's console asks none.
 */

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
