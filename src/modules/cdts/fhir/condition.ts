import { compact, reference } from '../../../http/fhir.ts';
import {
  type CdtRow,
  cdtDateParam,
  cdtResource,
  codeOf,
  codeParam,
  fieldDate,
  fixedParam,
  type MappedCdt,
  mappingsByName,
  patientParam,
  resourceHead,
  statusOf,
  statusParam,
} from './mapped.ts';

/** CDT records as US Core 6.1.0 Conditions (problems and health concerns), as the formation maps them (docs/fhir.md). */

const CLINICAL = 'http://terminology.hl7.org/CodeSystem/condition-clinical';
/** R4's category system has problem-list-item; US Core's own has health-concern. */
const CATEGORY_SYSTEMS: Record<string, string> = {
  'problem-list-item': 'http://terminology.hl7.org/CodeSystem/condition-category',
  'health-concern': 'http://hl7.org/fhir/us/core/CodeSystem/condition-category',
};

const categoryOf = ({ mapping }: MappedCdt) => mapping.category ?? 'problem-list-item';

function conditionOf(cdt: MappedCdt, row: CdtRow) {
  const { mapping } = cdt;
  const category = categoryOf(cdt);
  return compact({
    ...resourceHead('Condition', mapping, row),
    clinicalStatus: { coding: [{ system: CLINICAL, code: statusOf('Condition', mapping, row) }] },
    category: [{ coding: [{ system: CATEGORY_SYSTEMS[category], code: category }] }],
    code: codeOf(mapping, row),
    subject: reference('Patient', row.patient_id),
    onsetDateTime: fieldDate(mapping, row),
    recordedDate: row.created_at.toISOString(),
  });
}

export const fhirCondition = cdtResource('Condition', ['us-core-condition-problems-health-concerns'], (mapped) => {
  const byName = mappingsByName(mapped);
  return {
    params: {
      patient: patientParam,
      category: fixedParam('category', (code) => CATEGORY_SYSTEMS[code] ?? '', mapped, categoryOf, Object.keys(CATEGORY_SYSTEMS)),
      code: codeParam(mapped),
      'clinical-status': statusParam('clinical-status', 'Condition', mapped),
      'onset-date': cdtDateParam('onset-date', mapped, false),
    },
    toFhir: (row: CdtRow) => conditionOf(byName.get(row.cdt_name)!, row),
  };
});
