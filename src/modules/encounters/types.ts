import type { FieldDefinition } from '../../formation/field-types.ts';
import type { RecordSource } from '../../records/store.ts';
import { systemType } from '../../records/types.ts';

/** The record types of encounters (PROD-SHAPES "Encounter", "Encounter disposition", "Encounter assessment link"). */

export const ENCOUNTER = '__encounter__';
export const DISPOSITION = '__encounter_disposition__';
export const ASSESSMENT_LINK = '__encounter_assessment__';

export const statuses = ['DRAFT', 'OPEN', 'ACTIVE', 'FINALIZED', 'CANCELLED'] as const;
export type EncounterStatus = (typeof statuses)[number];

/** What an encounter stores; its appointment's times, names and the event itself are added when shown (views.ts). */
const encounterFields: FieldDefinition[] = [
  { name: 'title', type: 'text' },
  { name: 'description', type: 'textarea' },
  { name: 'instruction', type: 'textarea' },
  { name: 'notes', type: 'textarea' },
  { name: 'color', type: 'text' },
  { name: 'status', type: 'text' },
  { name: 'type', type: 'text' },
  { name: 'templateName', type: 'text' },
  { name: 'templateTitle', type: 'text' },
  { name: 'timezone', type: 'text' },
  { name: 'location', type: 'text' },
  { name: 'responsibleParty', type: 'text' },
  { name: 'calendarEventId', type: 'text' },
  { name: 'dispositionId', type: 'text' },
  { name: 'ownerUserId', type: 'text' },
  { name: 'activeUserId', type: 'text' },
  { name: 'visitServices', type: 'object' },
  { name: 'serviceCost', type: 'integer' },
  { name: 'preVisitCost', type: 'integer' },
  { name: 'encounterPaymentInfo', type: 'object' },
];

export const encounterFieldNames = encounterFields.map((field) => field.name);

export const encounterType = systemType({
  name: ENCOUNTER,
  fields: () => encounterFields,
  audit: { entityType: 'ENCOUNTER', actionPrefix: 'ENCOUNTER' },
});

/** The disposition form of the formation (DECISIONS §7), with `notes` always. */
export const dispositionType = systemType({
  name: DISPOSITION,
  fields: (formation) => {
    const fields = (formation.encounterDisposition?.fields ?? []) as FieldDefinition[];
    return fields.some((field) => field.name === 'notes') ? fields : [...fields, { name: 'notes', type: 'textarea' }];
  },
  audit: { entityType: 'ENCOUNTER_DISPOSITION', actionPrefix: 'ENCOUNTER_DISPOSITION' },
});

export const assessmentLinkType = systemType({
  name: ASSESSMENT_LINK,
  fields: () => [
    { name: 'fromTemplate', type: 'checkbox' },
    { name: 'assessmentTitle', type: 'text' },
    { name: 'relation', type: 'text' },
    { name: 'assessmentName', type: 'text' },
    { name: 'assessmentRecordId', type: 'text' },
  ],
  audit: { entityType: 'ENCOUNTER_ASSESSMENT', actionPrefix: 'ENCOUNTER_ASSESSMENT' },
});

/** Dispositions and links are the encounter's: their source (jsonBody `source_*`). */
export function encounterSource(encounterId: string): RecordSource {
  return { type: 'ENCOUNTER', id: encounterId, name: ENCOUNTER };
}
