import type { AuditActionCatalog } from '../../events/audit.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the dictionaries area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const dictionariesPermissions = {
  DICTIONARY_READ: 'Read dictionary values',
  DICTIONARY_UPDATE: 'Add, replace and delete dictionary values',
} as const;

export const dictionariesAuditActions = {
  DICTIONARY_VALUES_ADDED: { description: 'Values were added to a dictionary', events: ['DICTIONARY_CREATED'] },
  DICTIONARY_VALUES_REPLACED: { description: "A dictionary's values were replaced", events: ['DICTIONARY_UPDATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof dictionariesPermissions> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof dictionariesAuditActions> {}
}
