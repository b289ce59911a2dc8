import type { FastifyRequest } from 'fastify';
import { requestOrigin } from '../../../files/links.ts';
import { publicUrl } from '../../../http/provider-callbacks.ts';
import type { Services } from '../../../http/services.ts';

/** oidc-provider's routes, under the issuer (the FHIR base). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  userinfo: '/oauth/userinfo',
  jwks: '/oauth/jwks',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  end_session: '/oauth/logout',
  // Not enabled; oidc-provider still names them, apart from the FHIR API's.
  registration: '/oauth/register',
  pushed_authorization_request: '/oauth/par',
  device_authorization: '/oauth/device/auth',
  code_verification: '/oauth/device',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
} as const;

/** Where the sign-in and consent pages of an interaction are, under the issuer. */
export const interactionPath = (uid: string) => `/oauth/interaction/${uid}`;

export const REFRESH_TOKEN_SECONDS = 90 * 24 * 60 * 60;

/**
 * Where identity providers send people back after single sign-on (Cairn's route, not
 * oidc-provider's): one per instance, under its issuer, which an administrator registers at the provider.
 */
export const SSO_CALLBACK = '/oauth/sso/callback';

/**
 * An instance's FHIR base as its authorization server's issuer: under CAIRN_PUBLIC_URL when that is
 * set, otherwise as the request reached Cairn.
 */
export function issuerOf(services: Services, request: FastifyRequest, tenantName: string, instanceName: string): string {
  const path = `/${encodeURIComponent(tenantName)}/${encodeURIComponent(instanceName)}/fhir/R4`;
  return publicUrl(services, path) ?? `${requestOrigin(request)}${path}`;
}

/** The endpoints discovery documents and the CapabilityStatement name, for an instance. */
export function oauthEndpoints(services: Services, request: FastifyRequest, tenantName: string, instanceName: string) {
  const issuer = issuerOf(services, request, tenantName, instanceName);
  const url = (name: keyof typeof OAUTH_ROUTES) => `${issuer}${OAUTH_ROUTES[name]}`;
  return {
    issuer,
    authorize: url('authorization'),
    token: url('token'),
    jwks: url('jwks'),
    userinfo: url('userinfo'),
    revoke: url('revocation'),
    introspect: url('introspection'),
  };
}
