import { registerAjvFormats } from '@fastify/type-provider-typebox';
import { parsePhoneNumberWithError } from 'libphonenumber-js/max';
import Format from 'typebox/format';
import { isInstant } from './schemas.ts';

/** The string formats of the wire (E.164 phones, time zones, ISO 8601 date-times) and their checks. */

let formatsRegistered = false;

/** String formats used by the schemas, registered once per process. */
export function registerFormats(): void {
  if (formatsRegistered) return;
  formatsRegistered = true;
  registerAjvFormats();
  Format.Set('e164', isE164);
  Format.Set('timezone', isTimeZone);
  // Replaces the RFC 3339 check: DECISIONS §1 reads any ISO 8601 date-time.
  Format.Set('date-time', isInstant);
}

/**
 * 000 data convention 3: E.164, and the national leading zero after the country code is wrong
 * (+44020... must be +4420...). The number must also be a valid number for its country.
 */
export function isE164(value: string): boolean {
  if (!/^\+[1-9]\d{1,14}$/.test(value)) return false;
  try {
    const phone = parsePhoneNumberWithError(value);
    return phone.isValid() && phone.number === value;
  } catch {
    return false;
  }
}

const knownZones = new Map<string, boolean>();

/** Any IANA zone name the runtime knows, including the legacy US/... links the API uses. */
export function isTimeZone(value: string): boolean {
  let known = knownZones.get(value);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      known = true;
    } catch {
      known = false;
    }
    knownZones.set(value, known);
  }
  return known;
}
