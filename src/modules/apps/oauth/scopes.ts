import type { KoaContextWithOIDC } from 'oidc-provider';
import { parseScope } from '../../../http/scopes.ts';

/**
 * The scopes of SMART App Launch 2.0 an app may ask for (docs/identity.md): OpenID Connect's
 * (`openid`, `fhirUser`, `profile`, `offline_access`), the launch context's, and resource scopes,
 * v2 (`user/Patient.rs`) or v1 (`user/*.read`). A resource scope's type is one the FHIR API serves
 * or `*`; what it grants is r and s at most (the FHIR API is read-only), and at request time the
 * user's roles still decide (http/scopes.ts); a `patient/` scope narrows them to the patient of the
 * launch, or the one the user picks on the consent page.
 */

/** Scopes oidc-provider must know beside openid, offline_access and the claims' (fhirUser, profile). */
export const LAUNCH_SCOPES = ['launch', 'launch/patient', 'online_access'];

/** Every scope that is not a resource scope and an app may register. */
export const IDENTITY_SCOPES = ['openid', 'fhirUser', 'profile', 'offline_access', ...LAUNCH_SCOPES];

/** The client metadata (oidc-provider's extraClientMetadata) holding the resource scopes an app registered. */
export const RESOURCE_SCOPES = 'resource_scopes';

/** The resource scopes a client (an app) registered. */
export const registeredResourceScopes = (client: { metadata(): Record<string, unknown> } | undefined): string[] =>
  (client?.metadata()[RESOURCE_SCOPES] as string[] | undefined) ?? [];

/** Whether a scope an app registered (`user/*.rs`) covers one asked for (`user/Patient.r`). */
export function covers(registered: string, asked: string): boolean {
  if (registered === asked) return true;
  const wide = parseScope(registered);
  const narrow = parseScope(asked);
  if (!wide || !narrow || wide.context !== narrow.context) return false;
  if (wide.type !== '*' && wide.type !== narrow.type) return false;
  return narrow.interactions.every((interaction) => wide.interactions.includes(interaction));
}

/**
 * Whether Cairn grants a resource scope to an app acting for a user: user/ ones, and patient/ ones
 * (one patient's records, the launch's or the one picked), with r or s.
 */
export const grantable = (scope: string) => {
  const parsed = parseScope(scope);
  return (parsed?.context === 'user' || parsed?.context === 'patient') && parsed.interactions.length > 0;
};

/** Whether scopes need a patient in context: `launch/patient`, or a patient/ scope. */
export const asksForPatient = (scopes: readonly string[]) =>
  scopes.some((scope) => scope === 'launch/patient' || parseScope(scope)?.context === 'patient');

/**
 * The resource scopes the token being issued may carry: of those this request names (or the code
 * or refresh token it trades names), each the app's registration covers and Cairn grants. The
 * grant the user consented to narrows them further (oidc-provider intersects the two).
 */
export function resourceScopesOf(ctx: KoaContextWithOIDC): string[] {
  const registered = registeredResourceScopes(ctx.oidc.client);
  const { AuthorizationCode: code, RefreshToken: refresh } = ctx.oidc.entities;
  const asked = [ctx.oidc.params?.scope, code?.scope, refresh?.scope]
    .filter((text): text is string => typeof text === 'string')
    .flatMap((text) => text.split(' '));
  return [...new Set(asked)].filter((scope) => grantable(scope) && registered.some((entry) => covers(entry, scope)));
}
