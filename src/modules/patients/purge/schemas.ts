import { Type } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../../wire/schemas.ts';

/** A purge's wire contract (docs/patient-purge.md). */

export const PurgeBody = Type.Object(
  {
    confirm: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "The patient's id again, as in the path: a purge cannot be undone",
    }),
  },
  { additionalProperties: false },
);

export const PurgeParams = Type.Object({ tenantName: Type.String(), instanceName: Type.String(), purgeId: Uuid });

export const KeptRecords = Type.Object({
  resource: Type.String({ description: 'What is kept: INVOICE, AUDIT_EVENT, ACCESS_LOG, PATIENT_PURGE' }),
  reason: Type.String({ description: 'Why the law keeps it' }),
  count: Type.Integer({ description: 'How many (the audit rows and access-log entries before the purge wrote its own)' }),
  ids: Type.Optional(Type.Array(Uuid, { description: 'Their ids, for records read by id (invoices)' })),
});

export const PatientPurge = Type.Object({
  id: Uuid,
  patientId: Uuid,
  status: Type.Union([Type.Literal('QUEUED'), Type.Literal('DONE')], { description: 'QUEUED until its job has run' }),
  kept: Type.Array(KeptRecords, {
    description: 'What stays of the patient, and why: foreseen while QUEUED, as the purge left it once DONE',
  }),
  createdAt: DateTime,
  completedAt: Nullable(DateTime),
});
