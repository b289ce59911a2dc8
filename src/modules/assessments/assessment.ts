import { type FieldDefinition, fieldValueProblem, recordValueProblems } from '../../formation/field-types.ts';
import type { Formation } from '../../formation/schemas.ts';
import { systemFieldNames } from '../../formation/validate.ts';
import type { FieldError } from '../../wire/errors.ts';
import { type AssessmentDefinition, type AssessmentFieldDefinition, answerKey, type ScoringFormula } from './formation.ts';

/**
 * An assessment of the formation as the records read it (PROD-SHAPES "Assessment formation"):
 * its questions by answer key, the checks of answers (the field types' own, as CDT values are
 * checked), and the scoring of a set of answers.
 */

export interface Question {
  /** `<refCdtName>__<refCdtFieldName>`, the key the answer is saved under. */
  key: string;
  label: string;
  required: boolean;
  /** The question as a field of a record type, so its answers are checked by field-types.ts. */
  field: FieldDefinition;
}

export interface AssessmentModel {
  name: string;
  title: string | null;
  /** `_<name>`: the CDT production keeps the answers in (PROD-SHAPES). */
  cdtName: string;
  templateExists: boolean;
  /** The answerable questions (viewType question), in section and field order. */
  questions: Question[];
  definition: AssessmentDefinition;
}

export function findAssessment(formation: Formation, name: string): AssessmentDefinition | undefined {
  return (formation.assessments ?? []).find((assessment) => assessment.name === name);
}

const byOrder = <T extends { order?: number | undefined }>(items: readonly T[]): T[] =>
  items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => (a.item.order ?? a.index) - (b.item.order ?? b.index) || a.index - b.index)
    .map(({ item }) => item);

function optionValues(field: AssessmentFieldDefinition): string[] | undefined {
  const options = field.meta?.options;
  return options?.map((option) => (typeof option === 'string' ? option : String(option.value)));
}

export function assessmentModel(definition: AssessmentDefinition): AssessmentModel {
  const questions: Question[] = [];
  for (const section of byOrder(definition.sections ?? [])) {
    for (const field of byOrder(section.fields)) {
      // readOnly fields show a value; they take no answer (docs/decisions.md "Assessment records").
      if ((field.viewType ?? 'question') !== 'question') continue;
      const key = answerKey(definition.name, field);
      const options = optionValues(field);
      questions.push({
        key,
        label: field.label ?? field.name,
        required: field.meta?.required === true,
        field: {
          name: key,
          // Published formations are checked (formation/validate.ts): a question's type is known.
          type: (field.meta?.type ?? 'text') as FieldDefinition['type'],
          ...(options ? { options } : {}),
          ...(field.meta?.multiple ? { multiple: true } : {}),
        },
      });
    }
  }
  return {
    name: definition.name,
    title: definition.title ?? null,
    cdtName: `_${definition.name}`,
    templateExists: definition.template !== undefined && definition.template !== null,
    questions,
    definition,
  };
}

/** The `questions` of a record: [answer key, label], in the formation's order. */
export function questionLabels(model: AssessmentModel): [string, string][] {
  return model.questions.map((question) => [question.key, question.label]);
}

/**
 * The answers a `PUT .../answers` body saves, or what is wrong with them (every problem at once).
 * Keys are answer keys; the system keys a record's `answers` shows are read-only and ignored
 * (DECISIONS §10), any other key is a 400, as is a value its question's type does not take. A
 * null clears an answer; a required question may be left unanswered until completion.
 */
export function checkAnswers(
  model: AssessmentModel,
  body: Record<string, unknown>,
): { answers: Record<string, unknown>; problems: FieldError[] } {
  const answers = Object.fromEntries(Object.entries(body).filter(([key]) => !systemFieldNames.has(key)));
  const fields = model.questions.map((question) => question.field);
  return { answers, problems: recordValueProblems(fields, answers, { partial: true, path: 'body' }) };
}

/** What completing with these answers lacks: each required question unanswered (DECISIONS: completion). */
export function missingRequiredAnswers(model: AssessmentModel, answers: Record<string, unknown>): FieldError[] {
  return model.questions
    .filter((question) => question.required && isUnanswered(answers[question.key]))
    .map((question) => ({ path: `answers.${question.key}`, message: 'is required to complete the assessment' }));
}

function isUnanswered(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0)
  );
}

/** Answers that no longer fit the current formation (its question was removed or retyped) are kept but not scored. */
function fits(model: AssessmentModel, key: string, value: unknown): boolean {
  const question = model.questions.find((candidate) => candidate.key === key);
  return question !== undefined && fieldValueProblem(question.field, value) === undefined;
}

export interface GroupScore {
  name: string;
  title: string | null;
  formula: ScoringFormula;
  /** null when no answer of the group has a score yet. */
  score: number | null;
  /** How many of the group's questions gave a score. */
  scoredFields: number;
}

export interface Scoring {
  formula?: ScoringFormula;
  total?: number | null;
  groups?: GroupScore[];
}

/** Floating sums such as 0.1 + 0.2 are written as the decimal a person would (0.3). */
const tidy = (value: number) => Math.round(value * 1e6) / 1e6;

function apply(formula: ScoringFormula, scores: number[]): number | null {
  if (scores.length === 0) return null;
  const sum = scores.reduce((total, score) => total + score, 0);
  return tidy(formula === 'AVG' ? sum / scores.length : sum);
}

/**
 * The score one answer gives: with `scores`, the score listed for the answer (for a list answer,
 * the sum over its items), compared as text so that `1`, `"1"` and `true`/`"true"` meet; without
 * `scores`, a number answer is its own score. Anything else gives none.
 */
function answerScore(value: unknown, scores: readonly { score: number; answer: unknown }[] | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!scores || scores.length === 0) return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  const scoreOf = (item: unknown) => scores.find((entry) => String(entry.answer) === String(item))?.score;
  if (Array.isArray(value)) {
    const found = value.map(scoreOf).filter((score): score is number => score !== undefined);
    return found.length > 0 ? found.reduce((total, score) => total + score, 0) : undefined;
  }
  return scoreOf(value);
}

/**
 * The `scoring` of a record (docs/decisions.md "Assessment records"): each group applies its
 * formula (SUM or AVG; the assessment's when it names none) over the scores its questions'
 * answers give, and the total applies the assessment's formula (SUM by default) over the groups'
 * scores. An assessment without scoring groups scores `{}`.
 */
export function scoreAnswers(model: AssessmentModel, answers: Record<string, unknown>): Scoring {
  const scoring = model.definition.scoring;
  const groups = scoring?.groups ?? [];
  if (groups.length === 0) return {};
  const formula: ScoringFormula = scoring?.formula ?? 'SUM';
  const groupScores: GroupScore[] = groups.map((group) => {
    const scores: number[] = [];
    for (const field of group.fields) {
      const key = answerKey(model.name, field);
      const value = answers[key];
      if (!fits(model, key, value)) continue;
      const score = answerScore(value, field.scores);
      if (score !== undefined) scores.push(score);
    }
    const groupFormula = group.formula ?? formula;
    return {
      name: group.name,
      title: group.title ?? null,
      formula: groupFormula,
      score: apply(groupFormula, scores),
      scoredFields: scores.length,
    };
  });
  const scored = groupScores.flatMap((group) => (group.score === null ? [] : [group.score]));
  return { formula, total: apply(formula, scored), groups: groupScores };
}
