import type { NamesOf } from '../../wire/errors.ts';

/** What the sandbox area adds to the shared catalogs, beside its routes. */

export const sandboxPermissions = {
  SANDBOX_MANAGE:
    "Use the outside services' sandbox of an instance: read what it was given to send, tell it what became of a message, make messages come in",
} as const;

export const sandboxErrors = {
  SANDBOX_NOT_IN_USE: {
    status: 404,
    componentType: 'SANDBOX',
    message: "The instance's provider for this channel is not the sandbox: its sandbox routes do not exist",
  },
  SANDBOX_MESSAGE_NOT_FOUND: { status: 404, componentType: 'SANDBOX', message: 'No such message in the sandbox' },
  SANDBOX_MESSAGE_SETTLED: {
    status: 409,
    componentType: 'SANDBOX',
    message: 'The sandbox was already told what became of this message',
  },
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof sandboxPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof sandboxErrors> {}
}
