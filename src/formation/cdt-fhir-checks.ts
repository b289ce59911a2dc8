import { type CdtFhirMapping, categoryCodes, cdtProfiles, statusCodes } from './cdt-fhir.ts';
import type { FieldType } from './field-types.ts';
import type { FieldDefinitionInput } from './schemas.ts';
import type { AddProblem } from './sections.ts';

/** What publishing checks of a CDT declared as a FHIR resource (cdt-fhir.ts), beside its section's own rules. */

const NUMBERS: FieldType[] = ['integer', 'float'];
const TEXTS: FieldType[] = ['text', 'textarea', 'select'];
const CODES: FieldType[] = ['text', 'select'];
const DATES: FieldType[] = ['date', 'datetime'];

/** Why a CDT's FHIR mapping does not fit its fields or its profile, each at its path. */
export function cdtFhirProblems(fields: FieldDefinitionInput[], mapping: CdtFhirMapping, path: string, add: AddProblem) {
  const { resource } = cdtProfiles[mapping.profile];
  const typeOf = new Map(fields.map((field) => [field.name, field.type.toLowerCase() as FieldType]));
  const field = (at: string, name: string | undefined, allowed: FieldType[], role: string) => {
    if (name === undefined) return;
    const type = typeOf.get(name);
    if (type === undefined) add(`${path}.${at}`, `"${name}" is not a field of this CDT`);
    else if (!allowed.includes(type)) add(`${path}.${at}`, `"${name}" is a ${type} field; ${role} must be ${allowed.join(', ')}`);
  };

  const { code } = mapping;
  if ((code.code === undefined) === (code.field === undefined))
    add(`${path}.code`, 'give either code (one for every record) or field');
  field('code.field', code.field, CODES, 'a code');
  field('code.textField', code.textField, TEXTS, "a code's text");

  if (resource === 'Observation') {
    const bloodPressure = mapping.profile === 'us-core-blood-pressure';
    if (!mapping.value && !(mapping.components && mapping.components.length > 0)) {
      add(`${path}.value`, 'an Observation needs a value or components');
    }
    if (bloodPressure && !(mapping.components && mapping.components.length >= 2)) {
      add(`${path}.components`, 'a blood pressure needs its systolic and diastolic components');
    }
    field('value.field', mapping.value?.field, [...NUMBERS, ...TEXTS, 'boolean'], "an Observation's value");
    const valueType = mapping.value && typeOf.get(mapping.value.field);
    if (mapping.value && valueType && NUMBERS.includes(valueType) && !mapping.value.unit) {
      add(`${path}.value.unit`, 'a number needs its UCUM unit');
    }
    for (const [index, component] of (mapping.components ?? []).entries()) {
      field(`components.${index}.field`, component.field, NUMBERS, 'a component');
    }
  } else {
    if (mapping.value) add(`${path}.value`, `a ${resource} has no value`);
    if (mapping.components) add(`${path}.components`, `a ${resource} has no components`);
  }
  field('date.field', mapping.date?.field, DATES, 'a date');

  const statuses = statusCodes[resource];
  if (mapping.status) {
    const { code: status, field: statusField } = mapping.status;
    if ((status === undefined) === (statusField === undefined)) add(`${path}.status`, 'give either code or field');
    if (status !== undefined && !statuses.includes(status)) add(`${path}.status.code`, `must be one of ${statuses.join(', ')}`);
    field('status.field', statusField, ['select'], 'a status');
    const options = fields.find((candidate) => candidate.name === statusField)?.options ?? [];
    const unknown = options.filter((option) => !statuses.includes(option));
    if (unknown.length > 0)
      add(`${path}.status.field`, `options ${unknown.join(', ')} are not ${resource} status codes (${statuses.join(', ')})`);
  }

  const categories = categoryCodes[mapping.profile];
  if (mapping.category !== undefined && !categories?.includes(mapping.category)) {
    add(`${path}.category`, categories ? `must be one of ${categories.join(', ')}` : `${mapping.profile} has one category`);
  }
  if (mapping.intent !== undefined && resource !== 'MedicationRequest')
    add(`${path}.intent`, 'only a MedicationRequest has an intent');
  if (mapping.dosage !== undefined && resource !== 'MedicationRequest')
    add(`${path}.dosage`, 'only a MedicationRequest has a dosage');
  field('dosage.field', mapping.dosage?.field, TEXTS, 'a dosage');
}
