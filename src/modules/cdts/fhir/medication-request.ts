import { intentCodes } from '../../../formation/cdt-fhir.ts';
import { compact, practitionerColumn, reference } from '../../../http/fhir.ts';
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
 * CDT records as US Core 6.1.0 MedicationRequests (a medication list), as the formation maps them
 * (docs/fhir.md): the medication is the record's code (RxNorm), its requester the user who wrote it
 * (or the instance's Organization, for a record the system or an API client wrote).
 */

const INTENT_SYSTEM = 'http://hl7.org/fhir/CodeSystem/medicationrequest-intent';

type MedicationRow = CdtRow & { requester_id: string | null };

const intentOf = ({ mapping }: MappedCdt) => mapping.intent ?? 'order';

function medicationRequestOf(cdt: MappedCdt, row: MedicationRow) {
  const { mapping } = cdt;
  const dosage = mapping.dosage ? row.values[mapping.dosage.field] : undefined;
  return compact({
    ...resourceHead('MedicationRequest', mapping, row),
    status: statusOf('MedicationRequest', mapping, row),
    intent: intentOf(cdt),
    // Written by the care team from what they were told or prescribed: Cairn does not know which.
    reportedBoolean: false,
    medicationCodeableConcept: codeOf(mapping, row),
    subject: reference('Patient', row.patient_id),
    authoredOn: recordDate(mapping, row),
    // US Core: an order has a requester; written by the system or an API client, the care organization.
    requester: reference('Practitioner', row.requester_id) ?? reference('Organization', row.instance_id),
    dosageInstruction: typeof dosage === 'string' && dosage !== '' ? [{ text: dosage }] : undefined,
  });
}

export const fhirMedicationRequest = cdtResource('MedicationRequest', ['us-core-medicationrequest'], (mapped) => {
  const byName = mappingsByName(mapped);
  return {
    params: {
      patient: patientParam,
      intent: fixedParam('intent', INTENT_SYSTEM, mapped, intentOf, intentCodes),
      status: statusParam('status', 'MedicationRequest', mapped),
      code: codeParam(mapped),
      authoredon: cdtDateParam('authoredon', mapped, true),
    },
    // The user who wrote the record, when Cairn serves them as a Practitioner.
    columns: (tenantId) => [practitionerColumn(['created_by'], 'requester_id')(tenantId)],
    toFhir: (row: MedicationRow) => medicationRequestOf(byName.get(row.cdt_name)!, row),
  };
});
