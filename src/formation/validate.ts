import type { FieldError } from '../wire/errors.ts';
import { defaultDictionaryNames } from './defaults.ts';
import { fieldTypes } from './field-types.ts';
import { builtInPatientFields, reservedTopLevelNames } from './patient-fields.ts';
import { isPermission } from './permissions.ts';
import { answerKey, type FieldDefinitionInput, type Formation } from './schemas.ts';

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

  programProblems(formation, add);
  goalTemplateProblems(formation, add);
  for (const section of ['pdts', 'cdts', 'dictionaries', 'documentTypes'] as const) {
    uniqueNames(formation[section] ?? [], section, add);
    for (const [index, type] of (formation[section] ?? []).entries())
      fieldProblems(type.fields ?? [], `${section}.${index}.fields`, add);
  }
  if (formation.encounterDisposition) fieldProblems(formation.encounterDisposition.fields, 'encounterDisposition.fields', add);
  encounterTemplateProblems(formation, add);
  assessmentProblems(formation, add);
  for (const [index, dictionary] of (formation.dictionaries ?? []).entries()) {
    if (defaultDictionaryNames.has(dictionary.name)) {
      add(`dictionaries.${index}.name`, `"${dictionary.name}" is a default dictionary and cannot be redefined`);
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

/** System keys every CDT and PDT record's jsonBody carries; a custom field cannot take them. */
export const systemFieldNames = new Set([
  'id',
  'external_guid',
  'external_id',
  'created_at',
  'updated_at',
  'created_by',
  'created_by_name',
  'updated_by',
  'updated_by_name',
  'source_type',
  'source_id',
  'source_name',
]);

function fieldProblems(fields: FieldDefinitionInput[], path: string, add: (path: string, message: string) => void) {
  uniqueNames(fields, path, add);
  for (const [index, field] of fields.entries()) {
    if (systemFieldNames.has(field.name)) add(`${path}.${index}.name`, `"${field.name}" is a system field`);
    if (field.type.toLowerCase() === 'select' && !(field.options && field.options.length > 0)) {
      add(`${path}.${index}.options`, 'a select field needs options');
    }
  }
}

/** 001/DECISIONS §6: phases are unique, one is the START, and navigateTo names phases of the program. */
function programProblems(formation: Formation, add: (path: string, message: string) => void) {
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
}

function goalTemplateProblems(formation: Formation, add: (path: string, message: string) => void) {
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
}

/** DECISIONS §6: an encounter template names assessments and visit services of the same formation. */
function encounterTemplateProblems(formation: Formation, add: (path: string, message: string) => void) {
  uniqueNames(formation.assessments ?? [], 'assessments', add);
  uniqueNames(formation.visitServices ?? [], 'visitServices', add);
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
}

const knownFieldTypes = new Set<string>(fieldTypes);

/**
 * An assessment's questions take answers by key (`<refCdtName>__<refCdtFieldName>`), checked by
 * their `meta.type` as CDT fields are: so each key is unique, each question has a known type (a
 * select, its options), and scoring names only questions of its own assessment.
 */
function assessmentProblems(formation: Formation, add: (path: string, message: string) => void) {
  for (const [index, assessment] of (formation.assessments ?? []).entries()) {
    const path = `assessments.${index}`;
    const sections = assessment.sections ?? [];
    uniqueNames(sections, `${path}.sections`, add);
    const questionKeys = new Set<string>();
    const keys = new Set<string>();
    for (const [sectionIndex, section] of sections.entries()) {
      for (const [fieldIndex, field] of section.fields.entries()) {
        const fieldPath = `${path}.sections.${sectionIndex}.fields.${fieldIndex}`;
        const key = answerKey(assessment.name, field);
        if (keys.has(key)) add(`${fieldPath}.name`, `the answer key "${key}" is used twice`);
        keys.add(key);
        const type = field.meta?.type?.toLowerCase();
        const question = (field.viewType ?? 'question') === 'question';
        if (question) questionKeys.add(key);
        if (type === undefined) {
          if (question) add(`${fieldPath}.meta.type`, 'a question needs a type');
        } else if (!knownFieldTypes.has(type)) {
          add(`${fieldPath}.meta.type`, `unknown field type "${field.meta?.type}"`);
        } else if (type === 'select' && !(field.meta?.options && field.meta.options.length > 0)) {
          add(`${fieldPath}.meta.options`, 'a select question needs options');
        }
      }
    }
    const groups = assessment.scoring?.groups ?? [];
    uniqueNames(groups, `${path}.scoring.groups`, add);
    for (const [groupIndex, group] of groups.entries()) {
      for (const [fieldIndex, field] of group.fields.entries()) {
        const key = answerKey(assessment.name, field);
        if (!questionKeys.has(key)) {
          add(`${path}.scoring.groups.${groupIndex}.fields.${fieldIndex}`, `no question "${key}" in this assessment`);
        }
      }
    }
  }
}
