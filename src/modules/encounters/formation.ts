import { type Static, Type } from 'typebox';
import { FieldDefinition, Name, Title } from '../../formation/schemas.ts';
import type { FormationSection } from '../../formation/sections.ts';
import { fieldProblems, uniqueNames } from '../../formation/validate.ts';

/**
 * The encounters area's sections of the formation (DECISIONS §6): encounter templates, the visit
 * services they bill and the disposition form. Amounts are integer cents (000 convention 4).
 */

const Cents = Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'Integer cents' });

export const VisitService = Type.Object({
  name: Name,
  title: Title,
  serviceCost: Type.Optional(Cents),
  cancellationFee: Type.Optional(Cents),
  preVisitCost: Type.Optional(Cents),
  modifiers: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 20 }), { description: 'Modifier codes a visit may bill with (e.g. 95)' }),
  ),
});

/** PROD-SHAPES "Encounter template formation", with the assessments and visit services it names. */
export const EncounterTemplate = Type.Object({
  name: Name,
  title: Title,
  encounterDescription: Type.Optional(Type.String({ maxLength: 10_000 })),
  encounterInstruction: Type.Optional(Type.String({ maxLength: 100_000, description: 'HTML' })),
  encounterColor: Type.Optional(Type.String({ maxLength: 64 })),
  type: Type.Optional(Type.String({ maxLength: 64 })),
  deliveryMethod: Type.Optional(Type.String({ maxLength: 64, description: 'IN-PERSON, CALL or VIDEO' })),
  defaultDuration: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 60, description: 'Minutes' })),
  assessmentNames: Type.Optional(Type.Array(Type.String(), { description: 'Names of assessments of this formation' })),
  visitServices: Type.Optional(Type.Array(Type.String(), { description: 'Names of visit services of this formation' })),
});

export const EncounterDisposition = Type.Object({ fields: Type.Array(FieldDefinition) });

export type VisitServiceDefinition = Static<typeof VisitService>;
export type EncounterTemplateDefinition = Static<typeof EncounterTemplate>;

declare module '../../formation/schemas.ts' {
  interface FormationSections {
    encounterTemplates?: EncounterTemplateDefinition[];
    encounterDisposition?: Static<typeof EncounterDisposition>;
    visitServices?: VisitServiceDefinition[];
  }
}

export const encounterSections: FormationSection[] = [
  {
    key: 'encounterTemplates',
    route: 'encounters',
    schema: Type.Array(EncounterTemplate),
    // DECISIONS §6: an encounter template names assessments and visit services of the same formation.
    problems(formation, add) {
      uniqueNames(formation.encounterTemplates ?? [], 'encounterTemplates', add);
      const assessments = new Set((formation.assessments ?? []).map((assessment) => assessment.name));
      const services = new Set((formation.visitServices ?? []).map((service) => service.name));
      for (const [index, template] of (formation.encounterTemplates ?? []).entries()) {
        for (const name of template.assessmentNames ?? []) {
          if (!assessments.has(name)) add(`encounterTemplates.${index}.assessmentNames`, `no assessment "${name}"`);
        }
        for (const name of template.visitServices ?? []) {
          if (!services.has(name)) add(`encounterTemplates.${index}.visitServices`, `no visit service "${name}"`);
        }
      }
    },
  },
  {
    key: 'encounterDisposition',
    // DECISIONS §7: the disposition formation is named `__encounter_disposition__`.
    route: 'encounter-disposition',
    singleName: '__encounter_disposition__',
    schema: EncounterDisposition,
    problems(formation, add) {
      if (formation.encounterDisposition)
        fieldProblems(formation.encounterDisposition.fields, 'encounterDisposition.fields', add);
    },
  },
  {
    key: 'visitServices',
    route: 'visit-services',
    schema: Type.Array(VisitService),
    problems: (formation, add) => uniqueNames(formation.visitServices ?? [], 'visitServices', add),
  },
];
