import type { FieldError } from '../../http/errors.ts';
import { isPermission } from '../../http/permissions.ts';
import { builtInPatientFields, reservedTopLevelNames } from '../patients/fields.ts';
import type { Formation } from './schemas.ts';

/**
 * The rules a formation must meet before it is published: names are unique, references
 * resolve, and custom patient attributes cannot shadow built-in fields or the list keys that
 * clients unwrap (DECISIONS §10).
 */
export function formationProblems(formation: Formation): FieldError[] {
  const problems: FieldError[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });

  uniqueNames(formation.territories ?? [], 'territories', add);
  for (const [index, region] of (formation.territories ?? []).entries()) {
    const seen = new Set<string>();
    for (const territory of region.territories) {
      if (seen.has(territory)) add(`territories.${index}.territories`, `"${territory}" is listed twice`);
      seen.add(territory);
    }
  }

  uniqueNames(formation.securityPolicies ?? [], 'securityPolicies', add);
  for (const [index, policy] of (formation.securityPolicies ?? []).entries()) {
    for (const permission of policy.permissions) {
      if (!isPermission(permission)) add(`securityPolicies.${index}.permissions`, `unknown permission "${permission}"`);
    }
  }

  uniqueNames(formation.roles ?? [], 'roles', add);
  const policyNames = new Set((formation.securityPolicies ?? []).map((policy) => policy.name));
  for (const [index, role] of (formation.roles ?? []).entries()) {
    for (const policy of role.policies) {
      if (!policyNames.has(policy)) add(`roles.${index}.policies`, `no security policy named "${policy}"`);
    }
  }

  uniqueNames(formation.patientAttributes ?? [], 'patientAttributes', add);
  for (const [index, attribute] of (formation.patientAttributes ?? []).entries()) {
    const path = `patientAttributes.${index}`;
    if (builtInPatientFields.has(attribute.name)) {
      if (attribute.type) add(`${path}.type`, `"${attribute.name}" is a built-in field; only "required" applies`);
      continue;
    }
    if (reservedTopLevelNames.has(attribute.name)) {
      add(`${path}.name`, `"${attribute.name}" is reserved`);
      continue;
    }
    if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(attribute.name)) add(`${path}.name`, 'must start with a letter');
    if (!attribute.type) add(`${path}.type`, 'a custom attribute needs a type');
    if (attribute.type === 'select' && !(attribute.options && attribute.options.length > 0)) {
      add(`${path}.options`, 'a select attribute needs options');
    }
  }

  const phones = formation.instancePhones ?? [];
  uniqueBy(phones, (phone) => phone.id, 'instancePhones', 'id', add);
  if (phones.filter((phone) => phone.default).length > 1) add('instancePhones', 'at most one phone can be the default');

  return problems;
}

function uniqueNames(items: { name: string }[], section: string, add: (path: string, message: string) => void) {
  uniqueBy(items, (item) => item.name, section, 'name', add);
}

function uniqueBy<T>(
  items: T[],
  key: (item: T) => string,
  section: string,
  field: string,
  add: (path: string, message: string) => void,
) {
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    const value = key(item);
    if (seen.has(value)) add(`${section}.${index}.${field}`, `"${value}" is used twice`);
    seen.add(value);
  }
}
