import { type SqlBool, sql } from 'kysely';
import type { Row } from '../../db/schema.ts';
import {
  compact,
  type FhirResource,
  isUuid,
  nothing,
  reference,
  referencedId,
  referenceParam,
  tokenOf,
  tokenParam,
} from '../../http/fhir.ts';

/**
 * A patient's care plan as a FHIR R4 CarePlan and its goals as Goals, profiled as US Core 6.1.0
 * CarePlan and Goal. Each field's mapping is in docs/fhir.md.
 */

export const CARE_PLAN_ID_SYSTEM = 'https://cairn.health/fhir/sid/care-plan-id';
export const GOAL_ID_SYSTEM = 'https://cairn.health/fhir/sid/goal-id';

/** US Core's category every CarePlan it profiles carries: an assessment and plan of treatment. */
const ASSESS_PLAN = { system: 'http://hl7.org/fhir/us/core/CodeSystem/careplan-category', code: 'assess-plan' };

/** A care plan's row, with its goals' ids composed into the same statement (`goalsColumn`). */
type CarePlanRow = Row<'care_plans'> & { goal_ids: string[] };
type GoalRow = Row<'goals'>;

const escapeXhtml = (text: string) => text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);

function carePlanOf(row: CarePlanRow) {
  const overview = row.overview?.trim() ? row.overview : null;
  return {
    resourceType: 'CarePlan',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    identifier: [{ use: 'usual', system: CARE_PLAN_ID_SYSTEM, value: row.id }],
    // US Core requires a narrative: the plan's overview, as written.
    text: {
      status: overview ? 'additional' : 'empty',
      div: `<div xmlns="http://www.w3.org/1999/xhtml">${overview ? escapeXhtml(overview) : 'No overview yet.'}</div>`,
    },
    status: 'active',
    intent: 'plan',
    category: [{ coding: [ASSESS_PLAN] }],
    description: overview,
    subject: reference('Patient', row.patient_id),
    created: row.created_at.toISOString(),
    goal: row.goal_ids.map((id) => reference('Goal', id)),
  };
}

/**
 * The plan's goals, oldest first, as a composed column (goals_patient_idx): every goal `Goal`
 * serves of the patient, in the plan's instance (the one read), whatever its status: a removed
 * goal is a `cancelled` Goal, and `Goal?patient=` finds it too.
 */
const goalsColumn = (tenantId: string) =>
  sql`(SELECT coalesce(json_agg(g.id ORDER BY g.created_at, g.id), '[]') FROM goals g
       WHERE g.tenant_id = ${tenantId} AND g.patient_id = r.patient_id AND g.instance_id = r.instance_id)`.as('goal_ids');

/** CarePlan: a patient has one, searched by patient and US Core's category (assess-plan) or status (active). */
export const fhirCarePlan: FhirResource = {
  type: 'CarePlan',
  profile: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-careplan',
  permission: 'CARE_PLAN_READ',
  table: 'care_plans',
  instanceScoped: true,
  patient: { column: 'patient_id' },
  logAs: 'CARE_PLAN',
  auditEntity: 'CARE_PLAN',
  notFound: 'CARE_PLAN_NOT_FOUND',
  columns: (tenantId) => [goalsColumn(tenantId)],
  params: {
    patient: referenceParam('Patient', 'patient_id'),
    subject: referenceParam('Patient', 'patient_id'),
    // Every plan is assess-plan and active: another code matches none.
    category: {
      type: 'token',
      where: (token) => (tokenOf(token).code === ASSESS_PLAN.code ? sql<SqlBool>`true` : nothing),
    },
    status: { type: 'token', where: (token) => (tokenOf(token).code === 'active' ? sql<SqlBool>`true` : nothing) },
    // R4's CarePlan `goal`: the plan naming the goal, as `goal` shows it; `_include=CarePlan:goal` adds them.
    goal: {
      type: 'reference',
      where: (value, tenantId) => {
        const id = referencedId('Goal', value);
        return isUuid(id)
          ? sql<SqlBool>`EXISTS (SELECT 1 FROM goals g WHERE g.tenant_id = ${tenantId} AND g.id = ${id}
              AND g.patient_id = r.patient_id AND g.instance_id = r.instance_id)`
          : nothing;
      },
      includes: { targets: ['Goal'], refersTo: (row: CarePlanRow) => row.goal_ids.map((id) => ({ type: 'Goal', id })) },
    },
  },
  toFhir: (row: CarePlanRow) => compact(carePlanOf(row)),
};

const LIFECYCLE: Record<string, string> = { ACTIVE: 'active', COMPLETED: 'completed', REMOVED: 'cancelled' };
const PRIORITY: Record<string, string> = { HIGH: 'high-priority', MEDIUM: 'medium-priority', LOW: 'low-priority' };

function goalOf(row: GoalRow) {
  return {
    resourceType: 'Goal',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    identifier: [{ use: 'usual', system: GOAL_ID_SYSTEM, value: row.id }],
    lifecycleStatus: LIFECYCLE[row.status] ?? 'active',
    ...(row.status === 'COMPLETED'
      ? {
          achievementStatus: {
            coding: [{ system: 'http://terminology.hl7.org/CodeSystem/goal-achievement', code: 'achieved' }],
          },
        }
      : {}),
    ...(row.type ? { category: [{ text: row.type }] } : {}),
    ...(PRIORITY[row.priority]
      ? {
          priority: {
            coding: [{ system: 'http://terminology.hl7.org/CodeSystem/goal-priority', code: PRIORITY[row.priority] }],
          },
        }
      : {}),
    description: { text: row.name },
    subject: reference('Patient', row.patient_id),
    startDate: row.created_at.toISOString().slice(0, 10),
  };
}

/** Goal, searched by patient (the goals' index leads with tenant and patient) and lifecycle status. */
export const fhirGoal: FhirResource = {
  type: 'Goal',
  profile: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-goal',
  permission: 'CARE_PLAN_READ',
  table: 'goals',
  instanceScoped: true,
  patient: { column: 'patient_id' },
  logAs: 'GOAL',
  auditEntity: 'GOAL',
  notFound: 'GOAL_NOT_FOUND',
  params: {
    patient: referenceParam('Patient', 'patient_id'),
    subject: referenceParam('Patient', 'patient_id'),
    'lifecycle-status': tokenParam('lifecycle-status', 'status', LIFECYCLE),
  },
  toFhir: (row: GoalRow) => compact(goalOf(row)),
};
