import type { AuditActionCatalog } from '../../events/audit.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the jobs area (the administrators' view of the job queue) adds to the shared catalogs. */

export const jobsPermissions = {
  JOB_READ: "Read the tenant's background jobs (dead ones among them)",
  JOB_WRITE: 'Requeue dead background jobs',
} as const;

export const jobsErrors = {
  JOB_NOT_FOUND: { status: 404, componentType: 'JOB', message: 'Job not found' },
  JOB_NOT_DEAD: { status: 409, componentType: 'JOB', message: 'Only a DEAD job can be requeued' },
} as const;

export const jobsAuditActions = {
  JOB_REQUEUED: { description: 'An administrator requeued a dead job', events: [] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof jobsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof jobsErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof jobsAuditActions> {}
}
