/**
 * What the auth area offers other areas: the sign-in of a user by password under the token limits,
 * and SMART Backend Services' grant and OAuth's error format, which the apps' authorization servers
 * (modules/apps) serve beside their own.
 */
export { ASSERTION_ALGORITHMS } from './assertion.ts';
export { tokenLimitSettings } from './settings.ts';
export { backendServicesToken, OAuthError, OAuthErrorBody, oauthErrors, SmartToken, TokenForm } from './smart.ts';
export { supportedScopes } from './smart-scopes.ts';
export { findUserForLogin } from './store.ts';
export { checkedAttempt } from './token-limit.ts';
