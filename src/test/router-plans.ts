import { CompiledQuery, type Kysely } from 'kysely';
import { crossTenantMarkOf } from '../db/cross-tenant.ts';

/**
 * The router-plan check (Citus): every statement a route sends names its tenant for each table it
 * touches, so the coordinator sends it to one shard. Each captured statement is EXPLAINed on the
 * coordinator with the parameters it was sent with (nothing is run): a plan is a router plan when
 * every Citus node in it is one job of one task, with no sub-plan run beforehand. Statements marked
 * cross-tenant (db/cross-tenant.ts) may fan out, and session and transaction commands have no plan.
 */

/** Commands that are not planned (a write's BEGIN carries its SET LOCAL: db/in-flight.ts). */
const UNPLANNED = /^\s*(BEGIN|COMMIT|ROLLBACK|SET|RESET|SAVEPOINT|RELEASE|SHOW|DISCARD)\b/i;

interface PlanNode {
  'Node Type'?: string;
  'Custom Plan Provider'?: string;
  'Distributed Query'?: { Job?: { 'Task Count'?: number; Tasks?: unknown[] } };
  'Distributed Subplan Count'?: number;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

/** What is wrong with one plan: the shard counts of its Citus nodes, or nothing when it is a router plan. */
function fanOut(node: PlanNode, found: string[] = []): string[] {
  if (node['Custom Plan Provider']?.startsWith('Citus')) {
    const tasks = node['Distributed Query']?.Job?.['Task Count'];
    if (tasks !== undefined && tasks !== 1) found.push(`${tasks} tasks`);
    const subplans = node['Distributed Subplan Count'];
    if (subplans) found.push(`${subplans} sub-plans`);
  }
  for (const child of node.Plans ?? []) fanOut(child, found);
  // Sub-plans of a distributed query hang under their own keys.
  for (const value of Object.values(node)) {
    if (Array.isArray(value))
      for (const item of value)
        if (item && typeof item === 'object' && 'Plan' in item) fanOut((item as { Plan: PlanNode }).Plan, found);
  }
  return found;
}

export interface PlanProblem {
  statement: string;
  problem: string;
}

/**
 * EXPLAINs each statement (text → the parameters it was sent with) and answers those that are not
 * router plans, or that could not be planned, with why.
 */
export async function routerPlanProblems<DB>(
  db: Kysely<DB>,
  statements: ReadonlyMap<string, readonly unknown[]>,
): Promise<PlanProblem[]> {
  const problems: PlanProblem[] = [];
  for (const [text, parameters] of statements) {
    if (UNPLANNED.test(text) || crossTenantMarkOf(text)) continue;
    const statement = text.replace(/\s+/g, ' ').trim().slice(0, 300);
    try {
      // The text as it was sent, with its parameters: a custom plan, pruned by the values given.
      const { rows } = await db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${text}`, [...parameters]),
      );
      const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
      const found = plan ? fanOut(plan) : [];
      if (found.length > 0) problems.push({ statement, problem: found.join(', ') });
    } catch (error) {
      // A data exception (class 22: bytes PostgreSQL refuses, say) is the fuzzed parameters' fault,
      // not the statement's; the request that sent them was answered 4xx.
      if (String((error as { code?: unknown }).code).startsWith('22')) continue;
      problems.push({ statement, problem: `not planned: ${(error as Error).message}` });
    }
  }
  return problems;
}
