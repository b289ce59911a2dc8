import { Type } from 'typebox';
import { JsonObject } from '../wire/schemas.ts';
import { cdtFhirProblems } from './cdt-fhir-checks.ts';
import { defaultDictionaries, defaultDictionaryNames } from './defaults.ts';
import { isPermission } from './permissions.ts';
import { Cdt, Dictionary, type Formation, InstancePhone, Pdt, Role, SecurityPolicy, Territory } from './schemas.ts';
import type { AddProblem, FormationSection } from './sections.ts';
import { fieldProblems, uniqueBy, uniqueNames } from './validate.ts';

/**
 * The platform's sections of the formation (DECISIONS §6): who may do what (territories,
 * policies, roles), the record types (PDTs, CDTs, dictionaries) and the instance's phones. The
 * read routes' kebab-case names follow production.
 */

function recordTypes(key: 'pdts' | 'cdts' | 'dictionaries') {
  return (formation: Formation, add: AddProblem) => {
    uniqueNames(formation[key] ?? [], key, add);
    // Names starting with `_` are the system's record types (`_document_summary`, `__encounter__`):
    // a formation type of that name would let the generic routes write them around their rules.
    if (key === 'cdts') {
      for (const [index, type] of (formation.cdts ?? []).entries()) {
        if (type.name.startsWith('_')) add(`cdts.${index}.name`, `"${type.name}": names starting with _ are the system's`);
        if (type.fhir) cdtFhirProblems(type.fields, type.fhir, `cdts.${index}.fhir`, add);
      }
    }
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
  // Kept as given until the messaging areas read them.
  { key: 'messageTemplates', schema: Type.Array(JsonObject) },
];
