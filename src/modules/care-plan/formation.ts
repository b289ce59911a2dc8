import { type Static, Type } from 'typebox';
import { Name } from '../../formation/schemas.ts';
import type { FormationSection } from '../../formation/sections.ts';
import { uniqueNames } from '../../formation/validate.ts';
import { taskPriorities } from '../tasks/index.ts';

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

declare module '../../formation/schemas.ts' {
  interface FormationSections {
    goalTemplates?: Static<typeof GoalTemplate>[];
  }
}

/** 001 "Care plan": goals made from templates, their tasks assigned by role (a role of this formation). */
export const goalTemplatesSection: FormationSection = {
  key: 'goalTemplates',
  route: 'goal-templates',
  schema: Type.Array(GoalTemplate),
  problems(formation, add) {
    uniqueNames(formation.goalTemplates ?? [], 'goalTemplates', add);
    const roles = new Set((formation.roles ?? []).map((role) => role.name));
    for (const [index, template] of (formation.goalTemplates ?? []).entries()) {
      uniqueNames(template.taskTemplates ?? [], `goalTemplates.${index}.taskTemplates`, add);
      for (const [taskIndex, task] of (template.taskTemplates ?? []).entries()) {
        const roleName = task.subjectConfig?.roleName;
        if (roleName && !roles.has(roleName)) {
          add(`goalTemplates.${index}.taskTemplates.${taskIndex}.subjectConfig.roleName`, `no role "${roleName}"`);
        }
      }
    }
  },
};
