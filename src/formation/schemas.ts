import { type Static, type TSchema, type TUnsafe, Type } from 'typebox';
import { DateTime, E164, JsonObject, Nullable, Uuid } from '../wire/schemas.ts';
import { fieldTypes } from './field-types.ts';

/** Formation names: lower-case letters, digits, hyphen and underscore (001, dictionaries). */
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Title = Type.Optional(Type.String({ maxLength: 255 }));

export const Territory = Type.Object({
  name: Name,
  title: Title,
  territories: Type.Array(Type.String({ minLength: 1, maxLength: 100 })),
});

export const SecurityPolicy = Type.Object({
  name: Name,
  title: Title,
  permissions: Type.Array(Type.String()),
});

export const Role = Type.Object({
  name: Name,
  title: Title,
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  policies: Type.Array(Type.String()),
});

export const PatientAttribute = Type.Object(
  {
    name: Name,
    title: Title,
    type: Type.Optional(Type.Enum(fieldTypes)),
    required: Type.Optional(Type.Boolean()),
    options: Type.Optional(Type.Array(Type.String())),
    multiple: Type.Optional(Type.Boolean()),
  },
  {
    description:
      'A custom top-level patient property (with `type`), or a designer rule on a built-in patient field (its name, with `required`).',
  },
);

export const InstancePhone = Type.Object({
  id: Uuid,
  number: E164,
  default: Type.Optional(Type.Boolean()),
  label: Type.Optional(Type.String({ maxLength: 100 })),
});

export const phaseTypes = ['START', 'DEFAULT', 'FINISH'] as const;

export const ProgramPhase = Type.Object({
  name: Name,
  title: Title,
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  type: Type.Enum(phaseTypes),
  autoFinishProgram: Type.Optional(Type.Boolean()),
  navigateTo: Type.Optional(
    Type.Array(Type.Union([Type.String(), Type.Object({ name: Type.String() })]), {
      description: 'Phases reachable from this one, by name (prod writes `{name}`)',
    }),
  ),
});

export const Program = Type.Object({
  name: Name,
  title: Title,
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  phases: Type.Array(ProgramPhase, { minItems: 1 }),
  nodes: Type.Optional(Type.Array(Type.Unknown(), { description: "The designer's graph, kept as given" })),
});

export const taskPriorities = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const;
export const goalPriorities = ['LOW', 'MEDIUM', 'HIGH'] as const;

export const TaskTemplate = Type.Object({
  name: Name,
  taskName: Type.Optional(Type.String({ maxLength: 255, description: "The task's name; default: the template's name" })),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  priority: Type.Optional(Type.Enum(taskPriorities)),
  dueInDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })),
  subjectConfig: Type.Optional(
    Type.Object(
      { type: Type.Literal('ROLE'), roleName: Type.String() },
      { description: 'Assign to a care-team member with this role' },
    ),
  ),
});

export const GoalTemplate = Type.Object({
  name: Name,
  goalName: Type.String({ minLength: 1, maxLength: 255 }),
  type: Type.Optional(Type.String({ maxLength: 100 })),
  priority: Type.Optional(Type.Enum(goalPriorities)),
  taskTemplates: Type.Optional(Type.Array(TaskTemplate)),
});

/** A field of a PDT, CDT or dictionary. Types are those of field-types.ts, in either case. */
export const FieldDefinition = Type.Object({
  name: Name,
  title: Title,
  type: Type.Enum([...fieldTypes, ...fieldTypes.map((type) => type.toUpperCase())]),
  required: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Array(Type.String())),
  multiple: Type.Optional(Type.Boolean()),
});

export const Pdt = Type.Object({
  name: Name,
  title: Title,
  contactable: Type.Optional(Type.Boolean({ description: 'Records of this type can back a patient contact' })),
  fields: Type.Array(FieldDefinition),
});

export const Cdt = Type.Object({
  name: Name,
  title: Title,
  type: Type.Optional(Type.Enum(['MULTI_RECORD', 'SINGLE_RECORD'] as const)),
  fields: Type.Array(FieldDefinition),
});

export const Dictionary = Type.Object({
  name: Type.String({ pattern: '^[a-z0-9_-]+$', maxLength: 100 }),
  title: Title,
  internal: Type.Optional(Type.Boolean()),
  fields: Type.Array(FieldDefinition, { minItems: 1 }),
});

/** Document summaries' types (001 "Documents"): custom fields of the summary's type record. */
export const DocumentType = Type.Object({
  name: Name,
  title: Title,
  fields: Type.Optional(Type.Array(FieldDefinition)),
});

export const assessmentViewTypes = ['question', 'readOnly'] as const;
export const scoringFormulas = ['SUM', 'AVG'] as const;
export type ScoringFormula = (typeof scoringFormulas)[number];

/** Production writes these as null as often as it leaves them out. */
const OptionalRef = Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]));
/** A value an answer can take, as options and scores name it. */
const AnswerValue = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]);

/** An object that keeps keys it does not list, typed so (a designer's extra keys are kept as given). */
function Open<T extends TSchema>(schema: T): TUnsafe<Static<T> & { [key: string]: unknown }> {
  return Type.Unsafe<Static<T> & { [key: string]: unknown }>(schema);
}

/**
 * Assessments follow production's shape (PROD-SHAPES "Assessment formation"). The keys the API
 * reads are typed; every other key the designer writes (programs, template, conditionSettings,
 * displayType, ...) is kept as given, so each object here allows more.
 */
export const AssessmentFieldMeta = Open(
  Type.Object(
    {
      type: Type.Optional(
        Type.String({ minLength: 1, maxLength: 50, description: 'A field type (field-types.ts), either case' }),
      ),
      required: Type.Optional(Type.Boolean({ description: 'Must be answered before the record is COMPLETED' })),
      options: Type.Optional(
        Type.Array(
          Type.Union([
            Type.String({ maxLength: 1000 }),
            Type.Object(
              { value: AnswerValue, label: Type.Optional(Type.String({ maxLength: 1000 })) },
              { additionalProperties: true },
            ),
          ]),
          { description: 'Choices of a select question: values, or {value, label}' },
        ),
      ),
      multiple: Type.Optional(Type.Boolean({ description: 'A select question whose answer is a list of options' })),
    },
    { additionalProperties: true },
  ),
);

export const AssessmentField = Open(
  Type.Object(
    {
      name: Name,
      label: Type.Optional(Type.String({ maxLength: 5000 })),
      refCdtName: OptionalRef,
      refCdtFieldName: OptionalRef,
      order: Type.Optional(Type.Number()),
      viewType: Type.Optional(
        Type.Enum(assessmentViewTypes, { description: 'question (the default) is answered; readOnly is shown' }),
      ),
      meta: Type.Optional(AssessmentFieldMeta),
      prePopulatedValue: Type.Optional(Type.Unknown()),
      attachments: Type.Optional(Type.Array(Type.Unknown())),
    },
    {
      additionalProperties: true,
      description:
        'Its answer key is `<refCdtName>__<refCdtFieldName>`; refCdtName defaults to `_<assessment name>`, refCdtFieldName to the name.',
    },
  ),
);

export const AssessmentSection = Open(
  Type.Object(
    {
      name: Name,
      title: Title,
      order: Type.Optional(Type.Number()),
      fields: Type.Array(AssessmentField),
    },
    { additionalProperties: true },
  ),
);

export const ScoringField = Open(
  Type.Object(
    {
      refCdtName: OptionalRef,
      refCdtFieldName: Type.String({ minLength: 1, maxLength: 100 }),
      type: Type.Optional(Type.String({ maxLength: 50 })),
      scores: Type.Optional(
        Type.Array(Type.Object({ score: Type.Number(), answer: AnswerValue }, { additionalProperties: true }), {
          description: 'The score of each answer; without scores a number answer is its own score',
        }),
      ),
    },
    { additionalProperties: true },
  ),
);

export const ScoringGroup = Open(
  Type.Object(
    {
      name: Name,
      title: Title,
      formula: Type.Optional(Type.Enum(scoringFormulas)),
      fields: Type.Array(ScoringField),
    },
    { additionalProperties: true },
  ),
);

export const AssessmentScoring = Open(
  Type.Object(
    {
      formula: Type.Optional(
        Type.Enum(scoringFormulas, { description: "How the groups' scores make the total; SUM by default" }),
      ),
      groups: Type.Optional(Type.Array(ScoringGroup)),
    },
    { additionalProperties: true },
  ),
);

/** An assessment: its questions in sections, and the scoring of their answers. */
export const Assessment = Open(
  Type.Object(
    {
      name: Name,
      title: Title,
      sections: Type.Optional(Type.Array(AssessmentSection)),
      /** Formations written before sections existed listed questions here; they are kept, never answered. */
      questions: Type.Optional(Type.Array(Type.Unknown())),
      scoring: Type.Optional(AssessmentScoring),
    },
    { additionalProperties: true },
  ),
);

/** The key an answer to `field` is saved under (DECISIONS §7): `<refCdtName>__<refCdtFieldName>`. */
export function answerKey(
  assessmentName: string,
  field: { name?: string; refCdtName?: string | null; refCdtFieldName?: string | null },
): string {
  return `${field.refCdtName || `_${assessmentName}`}__${field.refCdtFieldName || field.name}`;
}

export const EncounterTemplate = Type.Object({
  name: Name,
  title: Title,
  assessmentNames: Type.Optional(Type.Array(Type.String(), { description: 'Names of assessments of this formation' })),
  visitServices: Type.Optional(Type.Array(Type.String(), { description: 'Names of visit services of this formation' })),
});

export const EncounterDisposition = Type.Object({ fields: Type.Array(FieldDefinition) });

const Amount = Type.Number({ minimum: 0 });

export const VisitService = Type.Object({
  name: Name,
  title: Title,
  serviceCost: Type.Optional(Amount),
  cancellationFee: Type.Optional(Amount),
  preVisitCost: Type.Optional(Amount),
  modifiers: Type.Optional(Type.Array(Type.Unknown())),
});

/**
 * The sections a formation can hold (DECISIONS §6); each is optional and defaults to empty.
 * Unknown keys, at the top or inside items, are dropped when the draft is saved (DECISIONS §10).
 */
export const FormationDocument = Type.Object({
  territories: Type.Optional(Type.Array(Territory)),
  securityPolicies: Type.Optional(Type.Array(SecurityPolicy)),
  roles: Type.Optional(Type.Array(Role)),
  patientAttributes: Type.Optional(Type.Array(PatientAttribute)),
  instancePhones: Type.Optional(Type.Array(InstancePhone)),
  programs: Type.Optional(Type.Array(Program)),
  goalTemplates: Type.Optional(Type.Array(GoalTemplate)),
  pdts: Type.Optional(Type.Array(Pdt)),
  cdts: Type.Optional(Type.Array(Cdt)),
  dictionaries: Type.Optional(Type.Array(Dictionary)),
  documentTypes: Type.Optional(Type.Array(DocumentType)),
  assessments: Type.Optional(Type.Array(Assessment)),
  encounterTemplates: Type.Optional(Type.Array(EncounterTemplate)),
  encounterDisposition: Type.Optional(EncounterDisposition),
  visitServices: Type.Optional(Type.Array(VisitService)),
  messageTemplates: Type.Optional(Type.Array(JsonObject)),
  webhooks: Type.Optional(Type.Array(JsonObject)),
});

export type ProgramDefinition = Static<typeof Program>;
export type GoalTemplateDefinition = Static<typeof GoalTemplate>;
export type FieldDefinitionInput = Static<typeof FieldDefinition>;
export type PdtDefinition = Static<typeof Pdt>;
export type CdtDefinition = Static<typeof Cdt>;
export type DictionaryDefinition = Static<typeof Dictionary>;
export type DocumentTypeDefinition = Static<typeof DocumentType>;
export type AssessmentDefinition = Static<typeof Assessment>;
export type AssessmentFieldDefinition = Static<typeof AssessmentField>;

export type Formation = Static<typeof FormationDocument>;

export const FormationVersionParam = Type.String({
  pattern: '^(current|draft|-1|[1-9][0-9]{0,8})$',
  description: 'A published version number, `current`, or `draft` (also written -1).',
});

export const FormationVersionInfo = Type.Object({
  version: Type.Integer({ description: '-1 is the draft' }),
  status: Type.Union([Type.Literal('DRAFT'), Type.Literal('PUBLISHED'), Type.Literal('CURRENT')]),
  createdAt: DateTime,
  updatedAt: DateTime,
  publishedAt: Nullable(DateTime),
  publishedByName: Nullable(Type.String()),
});

export const FormationWithInfo = Type.Intersect([FormationVersionInfo, Type.Object({ formation: FormationDocument })]);
