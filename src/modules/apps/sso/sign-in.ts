import type { FastifyReply, FastifyRequest } from 'fastify';
import * as oidc from 'openid-client';
import type { Services } from '../../../http/services.ts';
import { OAuthRecords } from '../oauth/adapter.ts';
import { interactionPath, SSO_CALLBACK } from '../oauth/endpoints.ts';
import { finish, interactionOf, sendPage } from '../oauth/interaction.ts';
import { errorPage } from '../oauth/pages.ts';
import type { InstanceServer } from '../oauth/servers.ts';
import type { IdentityProviderConfigurations } from './discovery.ts';
import { matchPerson, type PersonClaims, type Refusal } from './people.ts';
import { type IdentityProviderRow, readProvider } from './store.ts';

/**
 * Single sign-on on an authorization's sign-in page (docs/identity.md): Cairn is an OpenID Connect
 * relying party (openid-client) of the tenant's identity provider. The browser goes to the provider
 * with PKCE, a state and a nonce kept in an attempt (an authorization-server record, one use); it
 * comes back to the instance's one callback, which sends it on under its interaction's path, where
 * its interaction cookie goes (oidc-provider scopes it to that path): there the code is traded,
 * the person matched to a user, and the sign-in finished as the password's is.
 */

/** Long enough to sign in at the provider (a second factor there too), short enough that a stale tab fails. */
const ATTEMPT_SECONDS = 10 * 60;
/** What Cairn asks of the provider: who the person is, their email and their names (for a user it creates). */
const SCOPE = 'openid email profile';

interface Attempt {
  /** The interaction (its uid) the sign-in is for: only the browser holding its cookie finishes it. */
  interaction: string;
  providerId: string;
  verifier: string;
  nonce: string;
}

const attempts = (services: Services, server: InstanceServer) =>
  new OAuthRecords(services.db, { tenantId: server.tenant.id, instanceId: server.instance.id }, 'SsoAttempt', () =>
    services.clock.now(),
  );

const callbackOf = (server: InstanceServer) => `${server.issuer}${SSO_CALLBACK}`;
const pageOf = (server: InstanceServer, uid: string) => `${new URL(server.issuer).pathname}${interactionPath(uid)}`;
/** The query as the browser sent it: the provider's answer, passed on and read unchanged. */
const queryOf = (request: FastifyRequest) => (request.raw.url ?? '').split('?')[1] ?? '';

/** The provider's configuration (discovered, cached per node), or the page saying it cannot be reached. */
async function configurationOf(
  configurations: IdentityProviderConfigurations,
  provider: IdentityProviderRow,
  request: FastifyRequest,
): Promise<oidc.Configuration | undefined> {
  try {
    return await configurations.of(provider);
  } catch (error) {
    request.log.warn({ err: error, providerId: provider.id }, 'an identity provider could not be discovered');
    return undefined;
  }
}

/** The button on the sign-in page: off to the provider, with this browser's interaction. */
export async function startSignIn(
  services: Services,
  configurations: IdentityProviderConfigurations,
  server: InstanceServer,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
  providerId: string,
) {
  const details = await interactionOf(server, request, reply, uid);
  if (details.prompt.name !== 'login') {
    return sendPage(reply, 400, errorPage('You are signed in already', 'Go back to the app and start again.'));
  }
  const provider = await readProvider(services.db, server.tenant.id, providerId);
  if (!provider?.enabled) {
    return sendPage(reply, 404, errorPage('This way of signing in is not offered', undefined, pageOf(server, uid)));
  }
  const configuration = await configurationOf(configurations, provider, request);
  if (!configuration) return unreachable(reply, server, uid, provider);
  const attempt: Attempt = {
    interaction: uid,
    providerId: provider.id,
    verifier: oidc.randomPKCECodeVerifier(),
    nonce: oidc.randomNonce(),
  };
  const state = oidc.randomState();
  await attempts(services, server).upsert(state, { ...attempt }, ATTEMPT_SECONDS);
  const to = oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: callbackOf(server),
    scope: SCOPE,
    state,
    nonce: attempt.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(attempt.verifier),
    code_challenge_method: 'S256',
  });
  return reply.code(303).header('cache-control', 'no-store').redirect(to.href);
}

const expired = (reply: FastifyReply) =>
  sendPage(reply, 400, errorPage('This sign-in has expired or was used already', 'Start again from the app.'));

/**
 * The instance's callback, which the provider knows: the browser's interaction cookie is not sent
 * here (its path is the interaction's), so it goes on to its interaction's path with the answer.
 * Nothing is used up yet: that is for the browser that holds the interaction.
 */
export async function callback(services: Services, server: InstanceServer, request: FastifyRequest, reply: FastifyReply) {
  const state = new URLSearchParams(queryOf(request)).get('state');
  const attempt = state ? ((await attempts(services, server).find(state)) as Attempt | undefined) : undefined;
  if (!attempt) return expired(reply);
  return reply
    .code(303)
    .header('cache-control', 'no-store')
    .redirect(`${pageOf(server, attempt.interaction)}/sso-done?${queryOf(request)}`);
}

/** Back from the provider, under the interaction's path: trade the code, find the user, finish the sign-in. */
export async function finishSignIn(
  services: Services,
  configurations: IdentityProviderConfigurations,
  server: InstanceServer,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
) {
  // Only the browser that started the interaction gets here: an answer sent to another browser is refused.
  await interactionOf(server, request, reply, uid);
  const query = queryOf(request);
  const state = new URLSearchParams(query).get('state');
  // One use: taken before anything else, so a replay (or a race) finds nothing.
  const attempt = state ? ((await attempts(services, server).take(state)) as Attempt | undefined) : undefined;
  if (!state || !attempt || attempt.interaction !== uid) return expired(reply);
  const back = pageOf(server, uid);
  const provider = await readProvider(services.db, server.tenant.id, attempt.providerId);
  if (!provider?.enabled) return sendPage(reply, 400, errorPage('This way of signing in is no longer offered', undefined, back));
  const configuration = await configurationOf(configurations, provider, request);
  if (!configuration) return unreachable(reply, server, uid, provider);
  let claims: PersonClaims;
  try {
    const answer = new URL(callbackOf(server));
    answer.search = query;
    const tokens = await oidc.authorizationCodeGrant(configuration, answer, {
      pkceCodeVerifier: attempt.verifier,
      expectedState: state,
      expectedNonce: attempt.nonce,
      idTokenExpected: true,
    });
    claims = await claimsOf(configuration, tokens);
  } catch (error) {
    // The error's name and code only: a provider's description may name the person.
    const { name, code, error: oauthError } = error as { name?: string; code?: string; error?: string };
    request.log.info({ providerId: provider.id, name, code, oauthError }, 'a single sign-on did not complete');
    return sendPage(
      reply,
      400,
      errorPage(`Signing in with ${provider.name} did not complete`, 'Try again, or sign in another way.', back),
    );
  }
  const where = { tenant: server.tenant, instanceId: server.instance.id };
  const match = await matchPerson(services, where, provider, claims, request);
  if ('refused' in match) {
    request.log.info({ providerId: provider.id, refused: match.refused }, 'a single sign-on was refused');
    return sendPage(reply, 403, errorPage(refusalOf(match.refused, provider.name), undefined, back));
  }
  return finish(server, request, reply, { login: { accountId: match.user.id } });
}

/**
 * The person's claims: the ID token's, and the provider's userinfo when the token does not carry
 * the email (providers that follow OpenID Connect to the letter keep scope claims to userinfo).
 */
async function claimsOf(
  configuration: oidc.Configuration,
  tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>,
): Promise<PersonClaims> {
  const idToken = tokens.claims();
  if (!idToken) throw new Error('the provider answered no ID token');
  if (typeof idToken.email === 'string' || !configuration.serverMetadata().userinfo_endpoint) return idToken;
  const userinfo = await oidc.fetchUserInfo(configuration, tokens.access_token, idToken.sub);
  // The token's own claims win; it has no email here, so userinfo's is the one read.
  return { ...userinfo, ...idToken };
}

function refusalOf(refusal: Refusal, name: string): string {
  switch (refusal) {
    case 'UNKNOWN':
      return `Your account at ${name} is not a user here. Ask an administrator to add you.`;
    case 'NOT_ALLOWED':
      return `Your user here is disabled, or may not sign in with ${name}.`;
    case 'OTHER_PERSON':
      return `Your user here signs in with another account at ${name}.`;
  }
}

function unreachable(reply: FastifyReply, server: InstanceServer, uid: string, provider: IdentityProviderRow) {
  const page = errorPage(
    `${provider.name} cannot be reached`,
    'Try again in a moment, or sign in another way.',
    pageOf(server, uid),
  );
  return sendPage(reply, 502, page);
}
