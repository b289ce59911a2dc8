import { type Static, Type } from 'typebox';
import { Name, Title } from '../../formation/schemas.ts';
import type { FormationSection } from '../../formation/sections.ts';
import { uniqueNames } from '../../formation/validate.ts';

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

export type ProgramDefinition = Static<typeof Program>;

declare module '../../formation/schemas.ts' {
  interface FormationSections {
    programs?: ProgramDefinition[];
  }
}

/** 001/DECISIONS §6: phases are unique, one is the START, and navigateTo names phases of the program. */
export const programsSection: FormationSection = {
  key: 'programs',
  route: 'programs',
  schema: Type.Array(Program),
  problems(formation, add) {
    uniqueNames(formation.programs ?? [], 'programs', add);
    for (const [index, program] of (formation.programs ?? []).entries()) {
      const path = `programs.${index}`;
      uniqueNames(program.phases, `${path}.phases`, add);
      if (program.phases.filter((phase) => phase.type === 'START').length !== 1) {
        add(`${path}.phases`, 'a program has exactly one START phase');
      }
      const names = new Set(program.phases.map((phase) => phase.name));
      for (const [phaseIndex, phase] of program.phases.entries()) {
        for (const target of phase.navigateTo ?? []) {
          const name = typeof target === 'string' ? target : target.name;
          if (!names.has(name)) add(`${path}.phases.${phaseIndex}.navigateTo`, `no phase "${name}" in this program`);
        }
      }
    }
  },
};
