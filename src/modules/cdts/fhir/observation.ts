import { type CdtFhirMapping, cdtProfiles } from '../../../formation/cdt-fhir.ts';
import { compact, reference } from '../../../http/fhir.ts';
import {
  type CdtRow,
  cdtDateParam,
  cdtResource,
  codeOf,
  codeParam,
  fixedParam,
  type MappedCdt,
  mappingsByName,
  patientParam,
  recordDate,
  resourceHead,
  statusOf,
  statusParam,
} from './mapped.ts';

/**
 * CDT records as US Core 6.1.0 Observations (vital signs, blood pressure, laboratory, clinical
 * result, screening assessment), each CDT as its formation maps it (docs/fhir.md).
 */

const CATEGORY_SYSTEM = 'http://terminology.hl7.org/CodeSystem/observation-category';
const CATEGORIES = [
  'social-history',
  'vital-signs',
  'imaging',
  'laboratory',
  'procedure',
  'survey',
  'exam',
  'therapy',
  'activity',
];
const UCUM = 'http://unitsofmeasure.org';
const DATA_ABSENT = {
  coding: [{ system: 'http://terminology.hl7.org/CodeSystem/data-absent-reason', code: 'unknown', display: 'Unknown' }],
};

const categoryOf = ({ mapping }: MappedCdt) => mapping.category ?? (cdtProfiles[mapping.profile].category as string);

/** A number in its UCUM unit, or why there is none. */
const quantity = (value: unknown, unit: string) =>
  typeof value === 'number' ? { valueQuantity: { value, unit, system: UCUM, code: unit } } : { dataAbsentReason: DATA_ABSENT };

/** The value[x] of a record: a Quantity of a number field, a boolean, a string; or why there is none. */
function observedValue(cdt: MappedCdt, row: CdtRow) {
  const { value } = cdt.mapping;
  if (!value) return {};
  const held = row.values[value.field];
  if (held === null || held === undefined || held === '') return { dataAbsentReason: DATA_ABSENT };
  const type = cdt.types.get(value.field);
  if (type === 'integer' || type === 'float') return quantity(held, value.unit ?? '1');
  if (typeof held === 'boolean') return { valueBoolean: held };
  return { valueString: String(held) };
}

function observationOf(cdt: MappedCdt, row: CdtRow) {
  const mapping: CdtFhirMapping = cdt.mapping;
  return compact({
    ...resourceHead('Observation', mapping, row),
    status: statusOf('Observation', mapping, row),
    category: [{ coding: [{ system: CATEGORY_SYSTEM, code: categoryOf(cdt) }] }],
    code: codeOf(mapping, row),
    subject: reference('Patient', row.patient_id),
    effectiveDateTime: recordDate(mapping, row),
    issued: row.created_at.toISOString(),
    ...observedValue(cdt, row),
    component: mapping.components?.map((component) => ({
      code: { coding: [component.code], text: component.code.display },
      ...quantity(row.values[component.field], component.unit),
    })),
  });
}

export const fhirObservation = cdtResource(
  'Observation',
  [
    'us-core-vital-signs',
    'us-core-blood-pressure',
    'us-core-observation-lab',
    'us-core-observation-clinical-result',
    'us-core-observation-screening-assessment',
  ],
  (mapped) => {
    const byName = mappingsByName(mapped);
    return {
      params: {
        patient: patientParam,
        category: fixedParam('category', CATEGORY_SYSTEM, mapped, categoryOf, CATEGORIES),
        code: codeParam(mapped),
        date: cdtDateParam('date', mapped, true),
        status: statusParam('status', 'Observation', mapped),
      },
      toFhir: (row: CdtRow) => observationOf(byName.get(row.cdt_name)!, row),
    };
  },
);
