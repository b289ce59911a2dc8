import type { NamesOf } from '../../wire/errors.ts';

/** What the communication send adds to the shared catalogs, beside its routes. */

export const communicationsPermissions = {
  COMMUNICATION_SEND: 'Send SMS, email and calls to patients and their contacts (the two-step communication send)',
} as const;

export const communicationsErrors = {
  INVALID_COMMUNICATION_ID: {
    status: 400,
    componentType: 'COMMUNICATION',
    message: 'The communicationId is not one this server issued for this instance, or it was altered',
  },
  NO_INSTANCE_PHONE: {
    status: 400,
    componentType: 'COMMUNICATION',
    message: 'The instance has no such phone to send from (formation instancePhones)',
  },
  NO_CONTACT_ADDRESS: {
    status: 400,
    componentType: 'COMMUNICATION',
    message: 'The patient or contact has no phone number or email address for this channel; give one',
  },
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof communicationsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof communicationsErrors> {}
}
