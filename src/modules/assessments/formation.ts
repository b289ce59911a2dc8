import { type Static, type TSchema, type TUnsafe, Type } from 'typebox';
import { fieldTypes } from '../../formation/field-types.ts';
import { type Formation, Name, Title } from '../../formation/schemas.ts';
import type { AddProblem, FormationSection } from '../../formation/sections.ts';
import { uniqueNames } from '../../formation/validate.ts';

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

export type AssessmentDefinition = Static<typeof Assessment>;
export type AssessmentFieldDefinition = Static<typeof AssessmentField>;

declare module '../../formation/schemas.ts' {
  interface FormationSections {
    assessments?: AssessmentDefinition[];
  }
}

const knownFieldTypes = new Set<string>(fieldTypes);

/**
 * An assessment's questions take answers by key (`<refCdtName>__<refCdtFieldName>`), checked by
 * their `meta.type` as CDT fields are: so each key is unique, each question has a known type (a
 * select, its options), and scoring names only questions of its own assessment.
 */
function assessmentProblems(formation: Formation, add: AddProblem) {
  for (const [index, assessment] of (formation.assessments ?? []).entries()) {
    const path = `assessments.${index}`;
    const sections = assessment.sections ?? [];
    uniqueNames(sections, `${path}.sections`, add);
    const questionKeys = new Set<string>();
    const keys = new Set<string>();
    for (const [sectionIndex, section] of sections.entries()) {
      for (const [fieldIndex, field] of section.fields.entries()) {
        const fieldPath = `${path}.sections.${sectionIndex}.fields.${fieldIndex}`;
        const key = answerKey(assessment.name, field);
        if (keys.has(key)) add(`${fieldPath}.name`, `the answer key "${key}" is used twice`);
        keys.add(key);
        const type = field.meta?.type?.toLowerCase();
        const question = (field.viewType ?? 'question') === 'question';
        if (question) questionKeys.add(key);
        if (type === undefined) {
          if (question) add(`${fieldPath}.meta.type`, 'a question needs a type');
        } else if (!knownFieldTypes.has(type)) {
          add(`${fieldPath}.meta.type`, `unknown field type "${field.meta?.type}"`);
        } else if (type === 'select' && !(field.meta?.options && field.meta.options.length > 0)) {
          add(`${fieldPath}.meta.options`, 'a select question needs options');
        }
      }
    }
    const groups = assessment.scoring?.groups ?? [];
    uniqueNames(groups, `${path}.scoring.groups`, add);
    for (const [groupIndex, group] of groups.entries()) {
      for (const [fieldIndex, field] of group.fields.entries()) {
        const key = answerKey(assessment.name, field);
        if (!questionKeys.has(key)) {
          add(`${path}.scoring.groups.${groupIndex}.fields.${fieldIndex}`, `no question "${key}" in this assessment`);
        }
      }
    }
  }
}

export const assessmentsSection: FormationSection = {
  key: 'assessments',
  route: 'assessments',
  schema: Type.Array(Assessment),
  problems(formation, add) {
    uniqueNames(formation.assessments ?? [], 'assessments', add);
    assessmentProblems(formation, add);
  },
};
