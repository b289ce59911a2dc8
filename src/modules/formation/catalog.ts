import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the formation area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const formationPermissions = {
  FORMATION_READ: "Read the instance's formation (configuration)",
  FORMATION_WRITE: 'Edit and publish the formation draft',
} as const;

export const formationErrors = {
  FORMATION_SECTION_NOT_FOUND: { status: 404, componentType: 'FORMATION', message: 'No such formation section' },
  FORMATION_ITEM_NOT_FOUND: { status: 404, componentType: 'FORMATION', message: 'Formation item not found' },
  ORGANIZATION_NOT_FOUND: {
    status: 404,
    componentType: 'FORMATION',
    message: "Organization not found: not this instance's or its tenant's",
  },
} as const;

/** The events its records are (DECISIONS §9). */
export const formationEvents = {
  FORMATION: {
    description: "An instance's formation: its draft saved, a version published",
    subtypes: ['FORMATION_UPDATED', 'FORMATION_PUBLISHED'],
  },
} as const satisfies EventCatalog;

export const formationAuditActions = {
  FORMATION_DRAFT_SAVED: { description: 'The formation draft was replaced', events: ['FORMATION_UPDATED'] },
  FORMATION_PUBLISHED: { description: 'The draft was published as a new version', events: ['FORMATION_PUBLISHED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof formationPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof formationErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof formationAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof formationEvents> {}
}
