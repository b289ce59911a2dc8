import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { FileOwner } from '../../files/owners.ts';
import { MB } from '../../files/rules.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the voice area adds to the shared catalogs, beside its routes. */

export const voicePermissions = {
  VOICE_CALL_READ: 'Read voice calls and their recordings, unrecognized ones included',
  VOICE_CALL_UPDATE: 'Assign an unrecognized call to a patient',
  VOICE_CALL_EXPORT: 'Export voice calls (API clients, /export/VOICE_CALL)',
} as const;

export const voiceErrors = {
  VOICE_CALL_NOT_FOUND: { status: 404, componentType: 'VOICE_CALL', message: 'Voice call not found' },
  NO_CALLER_PHONE: {
    status: 400,
    componentType: 'VOICE_CALL',
    message: "A call rings the calling member's phone first: the caller must be a user with a phone",
  },
} as const;

/** Recordings, as vendors make them. */
export const voiceFiles = {
  VOICE_CALL: {
    readPermission: 'VOICE_CALL_READ',
    rules: { extensions: ['mp3', 'wav'], maxFileBytes: 100 * MB, maxFiles: 1, maxTotalBytes: 100 * MB },
  },
} as const satisfies Record<string, FileOwner>;

export const voiceEvents = {
  VOICE_CALL: {
    description: 'Voice calls, placed and received, their progress and recordings',
    subtypes: ['VOICE_CALL_CREATED', 'VOICE_CALL_UPDATED', 'VOICE_CALL_STATUS_CHANGED'],
  },
} as const satisfies EventCatalog;

export const voiceAuditActions = {
  VOICE_CALL_PLACED: { description: 'A call was placed through the communication send', events: ['VOICE_CALL_CREATED'] },
  VOICE_CALL_RECEIVED: { description: 'A call came in', events: ['VOICE_CALL_CREATED'] },
  VOICE_CALL_STATUS_CHANGED: { description: 'A call moved on (a leg rang, answered, ended)', events: ['VOICE_CALL_UPDATED'] },
  VOICE_CALL_RECORDED: { description: "A call's recording was stored", events: ['VOICE_CALL_UPDATED'] },
  VOICE_CALL_ASSIGNED: { description: 'An unrecognized call was assigned to a patient', events: ['VOICE_CALL_UPDATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof voicePermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof voiceErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof voiceAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof voiceEvents> {}
}
