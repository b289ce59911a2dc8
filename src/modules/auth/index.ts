/**
 * What the auth area offers other areas: the sign-in of a user by password under the token limits,
 * and SMART Backend Services' grant and OAuth's error format, which the apps' authorization servers
 * (modules/apps) serve beside their own; a user's second factor (mfa.ts): checked at a sign-in, and
 * removed by an administrator's route.
 */
export { ASSERTION_ALGORITHMS } from './assertion.ts';
export { checkSecondFactor, hasSecondFactor, removeSecondFactor, startTotp, type TotpEnrollment } from './mfa.ts';
export { tokenLimitSettings } from './settings.ts';
export { confirmationSignIn, secondFactorSignIn, signedInContext, userSignIn } from './sign-in.ts';
export { backendServicesToken, OAuthError, OAuthErrorBody, oauthErrors, SmartToken, TokenForm } from './smart.ts';
export { supportedScopes } from './smart-scopes.ts';
export { findUserForLogin } from './store.ts';
export { checkedAttempt } from './token-limit.ts';
