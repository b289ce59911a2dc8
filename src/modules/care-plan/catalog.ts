import type { NamesOf } from '../../wire/errors.ts';

/** What the care-plan area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const carePlanPermissions = {
  CARE_PLAN_READ: "Read patients' care plans, goals and goal comments",
  CARE_PLAN_UPDATE: 'Write care plan overviews, goals, goal tasks and goal comments',
} as const;

export const carePlanErrors = {
  GOAL_NOT_FOUND: { status: 404, componentType: 'CARE_PLAN', message: 'Goal not found' },
} as const;

export const carePlanAuditActions = {
  CARE_PLAN_OVERVIEW_UPDATED: "A care plan's overview was set",
  GOAL_CREATED: 'A goal was created from a template',
  GOAL_UPDATED: 'A goal was changed',
  GOAL_COMMENT_ADDED: 'A goal comment was added',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof carePlanPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof carePlanErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof carePlanAuditActions> {}
}
