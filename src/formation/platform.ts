import { Type } from 'typebox';
import { JsonObject } from '../wire/schemas.ts';
import { defaultDictionaries, defaultDictionaryNames } from './defaults.ts';
import { isPermission } from './permissions.ts';
import {
  Cdt,
  Dictionary,
  EncounterDisposition,
  EncounterTemplate,
  type Formation,
  InstancePhone,
  Pdt,
  Role,
  SecurityPolicy,
  Territory,
  VisitService,
} from './schemas.ts';
import type { AddProblem, FormationSection } from './sections.ts';
import { fieldProblems, uniqueBy, uniqueNames } from './validate.ts';

/**
 * The platform's sections of the formation (DECISIONS §6): who may do what (territories,
 * policies, roles), the record types (PDTs, CDTs, dictionaries), the instance's phones, and the
 * encounter reference data, until the encounters area declares it. The read routes' kebab-case
 * names follow production.
 */

function recordTypes(key: 'pdts' | 'cdts' | 'dictionaries') {
  return (formation: Formation, add: AddProblem) => {
    uniqueNames(formation[key] ?? [], key, add);
    for (const [index, type] of (formation[key] ?? []).entries()) fieldProblems(type.fields ?? [], `${key}.${index}.fields`, add);
  };
}

export const platformSections: FormationSection[] = [
  {
    key: 'territories',
    route: 'territories',
    schema: Type.Array(Territory),
    problems(formation, add) {
      uniqueNames(formation.territories ?? [], 'territories', add);
      for (const [index, region] of (formation.territories ?? []).entries()) {
        const seen = new Set<string>();
        for (const territory of region.territories) {
          if (seen.has(territory)) add(`territories.${index}.territories`, `"${territory}" is listed twice`);
          seen.add(territory);
        }
      }
    },
  },
  {
    key: 'securityPolicies',
    route: 'security-policies',
    schema: Type.Array(SecurityPolicy),
    problems(formation, add) {
      uniqueNames(formation.securityPolicies ?? [], 'securityPolicies', add);
      for (const [index, policy] of (formation.securityPolicies ?? []).entries()) {
        for (const permission of policy.permissions) {
          if (!isPermission(permission)) add(`securityPolicies.${index}.permissions`, `unknown permission "${permission}"`);
        }
      }
    },
  },
  {
    key: 'roles',
    route: 'roles',
    schema: Type.Array(Role),
    problems(formation, add) {
      uniqueNames(formation.roles ?? [], 'roles', add);
      const policyNames = new Set((formation.securityPolicies ?? []).map((policy) => policy.name));
      for (const [index, role] of (formation.roles ?? []).entries()) {
        for (const policy of role.policies) {
          if (!policyNames.has(policy)) add(`roles.${index}.policies`, `no security policy named "${policy}"`);
        }
      }
    },
  },
  {
    key: 'instancePhones',
    route: 'instance-phones',
    itemKey: 'id',
    schema: Type.Array(InstancePhone),
    problems(formation, add) {
      const phones = formation.instancePhones ?? [];
      uniqueBy(phones, (phone) => phone.id, 'instancePhones', 'id', add);
      if (phones.filter((phone) => phone.default).length > 1) add('instancePhones', 'at most one phone can be the default');
    },
  },
  { key: 'pdts', route: 'pdts', schema: Type.Array(Pdt), problems: recordTypes('pdts') },
  { key: 'cdts', route: 'cdts', schema: Type.Array(Cdt), problems: recordTypes('cdts') },
  {
    key: 'dictionaries',
    route: 'dictionaries',
    schema: Type.Array(Dictionary),
    items: (formation, options) =>
      [...defaultDictionaries, ...(formation.dictionaries ?? [])]
        .map((dictionary) => ({ ...dictionary, internal: dictionary.internal ?? false }))
        .filter((dictionary) => options.includeInternal || !dictionary.internal),
    problems(formation, add) {
      recordTypes('dictionaries')(formation, add);
      for (const [index, dictionary] of (formation.dictionaries ?? []).entries()) {
        if (defaultDictionaryNames.has(dictionary.name)) {
          add(`dictionaries.${index}.name`, `"${dictionary.name}" is a default dictionary and cannot be redefined`);
        }
      }
    },
  },
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
  // Kept as given until the messaging areas read them.
  { key: 'messageTemplates', schema: Type.Array(JsonObject) },
];
