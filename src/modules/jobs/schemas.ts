import { Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { DateTime, Nullable, TenantParams, Uuid } from '../../wire/schemas.ts';

export const jobStates = ['QUEUED', 'WAITING', 'RUNNING', 'DEAD'] as const;

export const Job = Type.Object({
  id: Uuid,
  kind: Type.String({ description: 'What it does (webhooks.deliver, files.remove, ...)' }),
  state: Type.Enum(jobStates, {
    description:
      'QUEUED: due at runAt (at once when null); WAITING: behind an earlier job of its key; RUNNING: taken by a worker; DEAD: out of attempts. A job that succeeds is gone.',
  }),
  attempts: Type.Integer({ description: 'Runs so far' }),
  maxAttempts: Nullable(Type.Integer({ description: 'Runs before it is DEAD, as its kind declares' })),
  key: Nullable(Type.String({ description: 'Jobs of one key run one at a time, in order' })),
  runAt: Nullable(DateTime),
  lastError: Nullable(Type.String({ description: "The last failure's code (never its message, which may hold PHI)" })),
  payload: Type.Record(Type.String(), Type.Unknown()),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const JobListQuery = Type.Object({
  ...PagingQuery,
  state: Type.Optional(Type.Enum(jobStates)),
  kind: Type.Optional(Type.String({ maxLength: 100 })),
});

export const JobParams = Type.Object({ ...TenantParams.properties, jobId: Uuid });
