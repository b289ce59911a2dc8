import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionResults } from 'oidc-provider';
import type { Services } from '../../../http/services.ts';
import { enabledProviders } from '../sso/store.ts';
import { interactionPath } from './endpoints.ts';
import { PAGE_CSP, signInPage } from './pages.ts';
import type { InstanceServer } from './servers.ts';

/**
 * What the pages of an authorization request (oidc-provider's "interactions") share: the page sent
 * under its CSP, the addresses of its forms, the interaction of this browser, the sign-in page, and
 * the answer back to oidc-provider, which redirects on. The sign-in is sign-in.ts, consent consent.ts.
 */

export type Details = Awaited<ReturnType<InstanceServer['provider']['interactionDetails']>>;

export function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('cache-control', 'no-store')
    .send(body);
}

export const actionOf = (server: InstanceServer, uid: string, step: 'login' | 'code' | 'consent') =>
  `${new URL(server.issuer).pathname}${interactionPath(uid)}/${step}`;

/** Far above a tenant's real number of identity providers: the buttons a page can hold. */
const MAX_SIGN_IN_OPTIONS = 20;

/** The sign-in page, with a button for each identity provider the tenant enabled (single sign-on, sso/). */
export async function signInOf(services: Services, server: InstanceServer, uid: string, appName: string, error?: string) {
  const providers = await enabledProviders(services.db, server.tenant.id, MAX_SIGN_IN_OPTIONS);
  const base = `${new URL(server.issuer).pathname}${interactionPath(uid)}`;
  const options = providers.map((provider) => ({ name: provider.name, href: `${base}/sso/${provider.id}` }));
  return signInPage(actionOf(server, uid, 'login'), appName, error, options);
}

export async function appNameOf(server: InstanceServer, details: Details): Promise<string> {
  const client = await server.provider.Client.find(String(details.params.client_id ?? ''));
  return client?.clientName ?? 'An app';
}

/** The details of this browser's interaction, which must be the one the URL names. */
export async function interactionOf(server: InstanceServer, request: FastifyRequest, reply: FastifyReply, uid: string) {
  const details = await server.provider.interactionDetails(request.raw, reply.raw);
  if (details.uid !== uid) throw new Error('interaction mismatch');
  return details;
}

/** The interaction's answer to oidc-provider (a sign-in, a consent, or an error), and the browser sent on. */
export async function finish(server: InstanceServer, request: FastifyRequest, reply: FastifyReply, result: InteractionResults) {
  const to = await server.provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: true });
  return reply.code(303).header('cache-control', 'no-store').redirect(to);
}
