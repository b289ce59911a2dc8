import { compact, reference } from '../../../http/fhir.ts';
import {
  type CdtRow,
  cdtResource,
  codeOf,
  codeParam,
  fieldDate,
  type MappedCdt,
  mappingsByName,
  patientParam,
  resourceHead,
  statusOf,
  statusParam,
} from './mapped.ts';

/** CDT records as US Core 6.1.0 AllergyIntolerances, as the formation maps them (docs/fhir.md). */

const CLINICAL = 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical';

function allergyOf(cdt: MappedCdt, row: CdtRow) {
  const { mapping } = cdt;
  return compact({
    ...resourceHead('AllergyIntolerance', mapping, row),
    clinicalStatus: { coding: [{ system: CLINICAL, code: statusOf('AllergyIntolerance', mapping, row) }] },
    code: codeOf(mapping, row),
    patient: reference('Patient', row.patient_id),
    onsetDateTime: fieldDate(mapping, row),
    recordedDate: row.created_at.toISOString(),
  });
}

export const fhirAllergyIntolerance = cdtResource('AllergyIntolerance', ['us-core-allergyintolerance'], (mapped) => {
  const byName = mappingsByName(mapped);
  return {
    params: {
      patient: patientParam,
      code: codeParam(mapped),
      'clinical-status': statusParam('clinical-status', 'AllergyIntolerance', mapped),
    },
    toFhir: (row: CdtRow) => allergyOf(byName.get(row.cdt_name)!, row),
  };
});
