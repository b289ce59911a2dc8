import { type Static, Type } from 'typebox';
import { PageObject, PagingQuery } from '../../http/pagination.ts';
import { CsvList, DateTime, JsonObject, Nullable, PatientParams, Uuid } from '../../wire/schemas.ts';
import { scoringFormulas } from './formation.ts';

/** The wire contract of assessment records (001 "Assessment record"; PROD-SHAPES "Assessment record"; DECISIONS §7). */

export const assessmentStatuses = ['NEW', 'IN_PROGRESS', 'COMPLETED'] as const;
export type AssessmentStatus = (typeof assessmentStatuses)[number];
export const AssessmentStatusEnum = Type.Enum(assessmentStatuses);

/** A local time (DECISIONS §1): the caller's wall clock with its offset, `2022-06-28T07:00:00.000-07:00`. */
const LocalDateTime = Type.String({
  description: "The instant in the caller's time zone (a user's own, UTC for API clients): YYYY-MM-DDTHH:mm:ss.SSS±HH:MM",
});

const GroupScore = Type.Object({
  name: Type.String(),
  title: Nullable(Type.String()),
  formula: Type.Enum(scoringFormulas),
  score: Nullable(Type.Number({ description: 'null until an answer of the group has a score' })),
  scoredFields: Type.Integer({ description: "How many of the group's questions gave a score" }),
});

export const AssessmentScoringView = Type.Object(
  {
    formula: Type.Optional(Type.Enum(scoringFormulas)),
    total: Type.Optional(Nullable(Type.Number())),
    groups: Type.Optional(Type.Array(GroupScore)),
  },
  { description: "Computed on every answer save from the formation's scoring groups; {} when the assessment has none" },
);

export const AssessmentRecord = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: Nullable(Type.String()),
  updatedBy: Nullable(Type.String()),
  createdByName: Nullable(Type.String()),
  updatedByName: Nullable(Type.String()),
  finalizedDate: Nullable(DateTime),
  localFinalizedDate: Nullable(LocalDateTime),
  localCreatedDate: LocalDateTime,
  localUpdatedDate: LocalDateTime,
  assessmentName: Type.String(),
  assessmentTitle: Nullable(Type.String()),
  assessmentCdtName: Type.String({ description: '"_" + assessmentName' }),
  version: Type.Integer({ description: '1 at creation, one more on every write' }),
  completedBy: Nullable(Type.String({ description: 'Who first completed it (a user or API client id)' })),
  completedByName: Nullable(Type.String()),
  completedVersion: Nullable(Type.Integer({ description: 'The version the first completion wrote' })),
  patientId: Uuid,
  status: AssessmentStatusEnum,
  answers: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'The system fields of a CDT record (id, created_at, ...) and every question\'s answer under "<cdtName>__<fieldName>", null when unanswered',
  }),
  scoring: AssessmentScoringView,
  folderId: Nullable(Type.String()),
  expirationDate: Nullable(DateTime),
  questions: Type.Record(Type.String(), Type.String(), { description: '"<cdtName>__<fieldName>": the question\'s label' }),
  resolvedCdtValues: JsonObject,
  pfa: Type.Boolean({ description: 'prod key; isPfa is accepted as an alias on input' }),
  templateExists: Type.Boolean(),
  urlAliasId: Nullable(Type.String()),
  encounterId: Nullable(Type.String()),
  recompletedBy: Nullable(Type.String()),
  recompletedByName: Nullable(Type.String()),
  recompletedAt: Nullable(DateTime),
});
export type AssessmentRecordView = Static<typeof AssessmentRecord>;

export const AssessmentRecordsParams = PatientParams;
export const AssessmentRecordParams = Type.Object({ ...PatientParams.properties, assessmentRecordId: Uuid });

export const AssessmentRecordListQuery = Type.Object({
  ...PagingQuery,
  statuses: Type.Optional(CsvList(AssessmentStatusEnum, { description: 'Only records in these statuses', maxItems: 10 })),
});
export type AssessmentRecordListQueryInput = Static<typeof AssessmentRecordListQuery>;

export const AssessmentRecordPage = PageObject(AssessmentRecord);

/** The keys create and PUT write; every other key (a whole record sent back) is ignored (DECISIONS §10). */
const writable = {
  assessmentTitle: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  pfa: Type.Optional(Type.Boolean()),
  isPfa: Type.Optional(Type.Boolean({ description: "The seed's name of pfa" })),
  status: Type.Optional(AssessmentStatusEnum),
  folderId: Type.Optional(
    Nullable(Type.String({ maxLength: 255, description: "The client's own folder label: stored as given, not checked" })),
  ),
  expirationDate: Type.Optional(Nullable(DateTime)),
  encounterId: Type.Optional(
    Nullable({
      ...Uuid,
      description:
        "An encounter of the same patient in this instance (404 ENCOUNTER_NOT_FOUND otherwise); on PUT only a value other than the record's own is checked",
    }),
  ),
};

export const AssessmentRecordCreate = Type.Object(
  {
    assessmentName: Type.String({ minLength: 1, maxLength: 100, description: 'An assessment of the current formation' }),
    ...writable,
  },
  { description: 'Answers cannot be saved here (PUT .../answers does). patientId is taken from the path.' },
);
export type AssessmentRecordCreateBody = Static<typeof AssessmentRecordCreate>;

export const AssessmentRecordPut = Type.Object(
  {
    assessmentName: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Must be the record's own" })),
    ...writable,
  },
  {
    description:
      'The record as read back is accepted: keys present change, keys left out keep their values, read-only keys are ignored.',
  },
);
export type AssessmentRecordPutBody = Static<typeof AssessmentRecordPut>;

export const AssessmentAnswersBody = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Answers by "<cdtName>__<fieldName>", flat: keys present are saved (null clears one), keys left out keep their answers. The read-only system keys of `answers` are ignored; any other unknown key is a 400.',
});
