import { createHash } from 'node:crypto';
import type { PickedPatient } from '../../patients/index.ts';

/**
 * The pages people see while an app asks for access: sign-in, consent and errors. Plain HTML forms
 * that work without script, labelled for screen readers, under a Content-Security-Policy that
 * allows nothing but their one stylesheet (by its hash). `form-action` is left out on purpose:
 * browsers apply it to the redirects after a form is sent, and the consent form's answer redirects
 * to the app.
 */

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}' +
  'label{display:block;margin:.75rem 0 .25rem}input[type=text],input[type=password],input[type=search]{width:100%;padding:.5rem}' +
  'li label{display:inline}' +
  'button{margin:1rem .5rem 0 0;padding:.5rem 1rem}fieldset{border:1px solid #888;padding:.5rem 1rem}' +
  '.error{color:#a00;font-weight:600}li{list-style:none}' +
  '.sso{display:block;margin:.5rem 0;padding:.5rem 1rem;border:1px solid #888;text-align:center}';

export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  // The enrolment page's QR code is a PNG data: URL.
  'img-src data:',
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const html = (text: string) => text.replace(/[&<>"']/g, (char) => escapes[char] ?? char);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${html(title)}</title><style>${STYLE}</style></head><body><main><h1>${html(title)}</h1>${body}</main></body></html>`;
}

/** A tenant's identity provider offered on the sign-in page, and where its button goes. */
export interface SignInOption {
  name: string;
  href: string;
}

/** The password form, and a "Sign in with {name}" link for each identity provider of the tenant (single sign-on). */
export function signInPage(action: string, appName: string, error?: string, providers: readonly SignInOption[] = []): string {
  const links = providers.map(
    (provider) => `<a class="sso" href="${html(provider.href)}">Sign in with ${html(provider.name)}</a>`,
  );
  return page(
    'Sign in',
    `<p>${html(appName)} asks you to sign in.</p>${error ? `<p class="error" role="alert">${html(error)}</p>` : ''}` +
      `<form method="post" action="${html(action)}">` +
      '<label for="username">Username</label><input type="text" id="username" name="username" autocomplete="username" required autofocus>' +
      '<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>' +
      '<button type="submit">Sign in</button></form>' +
      (links.length > 0 ? `<nav aria-label="Other ways to sign in"><p>Or:</p>${links.join('')}</nav>` : ''),
  );
}

/** The second step of a sign-in, for a user with a second factor: a code from their app, or a recovery code. */
export function codePage(action: string, appName: string, error?: string): string {
  return page(
    'Enter your code',
    `<p>${html(appName)} asks you to sign in. Enter the code your authenticator app shows, or one of your recovery codes.</p>` +
      (error ? `<p class="error" role="alert">${html(error)}</p>` : '') +
      `<form method="post" action="${html(action)}">` +
      '<label for="code">Code</label><input type="text" id="code" name="code" autocomplete="one-time-code" inputmode="text" maxlength="64" required autofocus>' +
      '<button type="submit">Sign in</button></form>',
  );
}

/**
 * Enrolment, where the tenant requires a second factor and the user has none: the QR code (and the
 * secret, to type in), and the first code from it.
 */
export function enrolPage(action: string, appName: string, enrolment: { qrCode: string; secret: string }): string {
  return page(
    'Add a second factor',
    `<p>Your organization asks for a one-time code at every sign-in. Scan this with an authenticator app, then enter the code it shows to go on to ${html(appName)}.</p>` +
      `<img src="${html(enrolment.qrCode)}" alt="QR code of the authenticator secret" width="200" height="200">` +
      `<p>Or type this secret into the app: <code>${html(enrolment.secret)}</code></p>` +
      `<form method="post" action="${html(action)}">` +
      '<label for="code">Code</label><input type="text" id="code" name="code" autocomplete="one-time-code" inputmode="numeric" maxlength="6" required autofocus>' +
      '<button type="submit">Add and sign in</button></form>',
  );
}

/** The recovery codes of a factor just added, shown this once, before the sign-in goes on. */
export function recoveryCodesPage(action: string, codes: readonly string[]): string {
  return page(
    'Keep your recovery codes',
    '<p>Each of these signs you in once in place of a code, if you lose your authenticator. Keep them somewhere safe: they are not shown again.</p>' +
      `<ul>${codes.map((code) => `<li><code>${html(code)}</code></li>`).join('')}</ul>` +
      `<form method="post" action="${html(action)}"><input type="hidden" name="kept" value="yes"><button type="submit">I have kept them: go on</button></form>`,
  );
}

export interface ConsentChoice {
  scope: string;
  /** What the scope lets the app do, in words. */
  meaning: string;
}

/** The standalone launch's patient picker (picker.ts): a search, and the patients it found. */
export interface Picker {
  /** The page's own address, searched again with `q`. */
  searchAction: string;
  search: string;
  patients: PickedPatient[];
}

const patientLabel = (patient: PickedPatient) =>
  `${[patient.lastName, patient.firstName].filter(Boolean).join(', ') || 'Unnamed patient'}${patient.birthDate ? `, born ${patient.birthDate}` : ''}`;

function pickerSearch(picker: Picker): string {
  return (
    `<form method="get" action="${html(picker.searchAction)}" role="search">` +
    `<label for="q">Find a patient by name</label><input type="search" id="q" name="q" value="${html(picker.search)}" maxlength="100">` +
    '<button type="submit">Search</button></form>'
  );
}

function pickerChoices(picker: Picker): string {
  if (picker.patients.length === 0) return '<p>No patient found that you may see: search by another name.</p>';
  const items = picker.patients
    .map(
      (patient, index) =>
        `<li><input type="radio" id="patient-${index}" name="patient" value="${html(patient.id)}"${picker.patients.length === 1 ? ' checked' : ''}> <label for="patient-${index}">${html(patientLabel(patient))}</label></li>`,
    )
    .join('');
  return `<fieldset><legend>Which patient should the app open?</legend><ul>${items}</ul></fieldset>`;
}

export function consentPage(action: string, appName: string, choices: ConsentChoice[], picker?: Picker, error?: string): string {
  const items = choices
    .map(
      (choice, index) =>
        `<li><input type="checkbox" id="scope-${index}" name="scope" value="${html(choice.scope)}" checked> <label for="scope-${index}">${html(choice.meaning)} <code>${html(choice.scope)}</code></label></li>`,
    )
    .join('');
  return page(
    `Allow ${appName}?`,
    (error ? `<p class="error" role="alert">${html(error)}</p>` : '') +
      (picker ? pickerSearch(picker) : '') +
      `<form method="post" action="${html(action)}">${picker ? pickerChoices(picker) : ''}` +
      `<fieldset><legend>${html(appName)} asks to:</legend><ul>${items}</ul></fieldset>` +
      '<p>Uncheck what you do not want to allow.</p>' +
      '<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>',
  );
}

/** An error a person reads; `backTo` links to the sign-in page when trying another way may help. */
/**
 * Sign-out's question (oidc-provider's end_session): its form (hidden, with its anti-forgery field)
 * is the library's; the buttons send it.
 */
export function signOutPage(form: string): string {
  return page(
    'Sign out?',
    `${form}<p>You are signed in to Cairn in this browser.</p>` +
      '<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Sign out</button>' +
      '<button type="submit" form="op.logoutForm">Stay signed in</button>',
  );
}

export function signedOutPage(): string {
  return page('Signed out', '<p>You are signed out of Cairn in this browser.</p>');
}

export function errorPage(error: string, description?: string, backTo?: string): string {
  return page(
    'Sign-in cannot go on',
    `<p class="error" role="alert">${html(error)}</p>${description ? `<p>${html(description)}</p>` : ''}` +
      (backTo ? `<p><a href="${html(backTo)}">Back to sign-in</a></p>` : ''),
  );
}
