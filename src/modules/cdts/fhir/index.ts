import type { FhirResource } from '../../../http/fhir.ts';
import { fhirAllergyIntolerance } from './allergy-intolerance.ts';
import { fhirCondition } from './condition.ts';
import { fhirMedicationRequest } from './medication-request.ts';
import { fhirObservation } from './observation.ts';

/** The FHIR resources a formation may declare its CDTs as (formation/cdt-fhir.ts). */
export const cdtFhirResources: FhirResource[] = [fhirObservation, fhirCondition, fhirAllergyIntolerance, fhirMedicationRequest];
