import type { Authorship } from '../../db/schema.ts';

/** The care-plan area's tables, merged into the database's `DB` type. */

export interface CarePlansTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  patient_id: string;
  id: string;
  overview: string | null;
  overview_created_at: Date | null;
  overview_created_by_name: string | null;
  overview_updated_at: Date | null;
  overview_updated_by_name: string | null;
}

export interface GoalsTable extends Authorship {
  tenant_id: string;
  id: string;
  instance_id: string;
  patient_id: string;
  name: string;
  type: string | null;
  priority: string;
  status: string;
  template_name: string | null;
}

export interface GoalCommentsTable extends Authorship {
  tenant_id: string;
  id: string;
  goal_id: string;
  text: string;
}

declare module '../../db/schema.ts' {
  interface DB {
    care_plans: CarePlansTable;
    goals: GoalsTable;
    goal_comments: GoalCommentsTable;
  }
}
