import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the care-plan area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const carePlanPermissions = {
  CARE_PLAN_READ: "Read patients' care plans, goals and goal comments",
  CARE_PLAN_UPDATE: 'Write care plan overviews, goals, goal tasks and goal comments',
  CARE_PLAN_EXPORT: 'Export care plans with their goals (API clients, /export/CARE_PLAN)',
} as const;

export const carePlanErrors = {
  GOAL_NOT_FOUND: { status: 404, componentType: 'CARE_PLAN', message: 'Goal not found' },
  CARE_PLAN_NOT_FOUND: { status: 404, componentType: 'CARE_PLAN', message: 'Care plan not found' },
} as const;

/** The events its records are (DECISIONS §9). */
export const carePlanEvents = {
  CARE_PLAN: { description: "A patient's care plan and its overview", subtypes: ['CARE_PLAN_CREATED', 'CARE_PLAN_UPDATED'] },
  GOAL: { description: 'Care plan goals, their comments included', subtypes: ['GOAL_CREATED', 'GOAL_UPDATED'] },
} as const satisfies EventCatalog;

export const carePlanAuditActions = {
  CARE_PLAN_CREATED: {
    description: "A patient's care plan was made (on its first read or write)",
    events: ['CARE_PLAN_CREATED'],
  },
  CARE_PLAN_OVERVIEW_UPDATED: { description: "A care plan's overview was set", events: ['CARE_PLAN_UPDATED'] },
  GOAL_CREATED: { description: 'A goal was created from a template', events: ['GOAL_CREATED'] },
  GOAL_UPDATED: { description: 'A goal was changed', events: ['GOAL_UPDATED'] },
  GOAL_COMMENT_ADDED: { description: 'A goal comment was added', events: ['GOAL_UPDATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof carePlanPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof carePlanErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof carePlanAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof carePlanEvents> {}
}
