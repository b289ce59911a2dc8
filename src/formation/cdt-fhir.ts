import { type Static, Type } from 'typebox';

/**
 * A CDT declared as a FHIR resource (docs/fhir.md "Clinical data from CDTs"): which US Core 6.1.0
 * profile its records are, and which of its fields hold the code, the value and its unit, the
 * components, the date and the status. The FHIR API then serves its records as that profile.
 * Checked at publish (cdt-fhir-checks.ts): each field named must be the CDT's, of a type the element
 * can hold.
 */

/** The profiles a CDT may be, the resource each is and what it fixes. */
export const cdtProfiles = {
  'us-core-vital-signs': { resource: 'Observation', category: 'vital-signs' },
  'us-core-blood-pressure': { resource: 'Observation', category: 'vital-signs' },
  'us-core-observation-lab': { resource: 'Observation', category: 'laboratory' },
  'us-core-observation-clinical-result': { resource: 'Observation', category: 'laboratory' },
  'us-core-observation-screening-assessment': { resource: 'Observation', category: 'survey' },
  'us-core-condition-problems-health-concerns': { resource: 'Condition', category: 'problem-list-item' },
  'us-core-allergyintolerance': { resource: 'AllergyIntolerance', category: undefined },
  'us-core-medicationrequest': { resource: 'MedicationRequest', category: undefined },
} as const;

export type CdtProfile = keyof typeof cdtProfiles;
export type CdtResourceType = (typeof cdtProfiles)[CdtProfile]['resource'];

/** The codes a status takes, per resource (R4's required bindings). */
export const statusCodes: Record<CdtResourceType, readonly string[]> = {
  // Observation.status
  Observation: ['registered', 'preliminary', 'final', 'amended', 'corrected', 'cancelled', 'entered-in-error', 'unknown'],
  // Condition.clinicalStatus
  Condition: ['active', 'recurrence', 'relapse', 'inactive', 'remission', 'resolved'],
  // AllergyIntolerance.clinicalStatus
  AllergyIntolerance: ['active', 'inactive', 'resolved'],
  // MedicationRequest.status
  MedicationRequest: ['active', 'on-hold', 'cancelled', 'completed', 'entered-in-error', 'stopped', 'draft', 'unknown'],
};

/** What a record's status is when the CDT names none. */
export const defaultStatus: Record<CdtResourceType, string> = {
  Observation: 'final',
  Condition: 'active',
  AllergyIntolerance: 'active',
  MedicationRequest: 'active',
};

/** The categories a Condition or an Observation of a profile may be (the profile's slice). */
export const categoryCodes: Partial<Record<CdtProfile, readonly string[]>> = {
  'us-core-condition-problems-health-concerns': ['problem-list-item', 'health-concern'],
  'us-core-observation-clinical-result': ['laboratory', 'imaging', 'procedure', 'social-history', 'exam', 'therapy'],
  'us-core-observation-screening-assessment': ['survey', 'social-history', 'functional-status', 'cognitive-status'],
};

/** MedicationRequest.intent's codes. */
export const intentCodes = [
  'proposal',
  'plan',
  'order',
  'original-order',
  'reflex-order',
  'filler-order',
  'instance-order',
  'option',
];

const FieldName = Type.String({ minLength: 1, maxLength: 100, description: "One of the CDT's fields" });
const Uri = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'A code system: http://loinc.org, http://snomed.info/sct, http://www.nlm.nih.gov/research/umls/rxnorm',
});
const Coding = Type.Object({
  system: Uri,
  code: Type.String({ minLength: 1, maxLength: 100 }),
  display: Type.Optional(Type.String({ maxLength: 255 })),
});

export const CdtFhir = Type.Object(
  {
    profile: Type.Enum(Object.keys(cdtProfiles) as CdtProfile[], { description: 'The US Core 6.1.0 profile the records are' }),
    code: Type.Object(
      {
        system: Uri,
        code: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 100,
            description: 'The code every record has (a blood pressure panel: LOINC 85354-9)',
          }),
        ),
        display: Type.Optional(Type.String({ maxLength: 255 })),
        field: Type.Optional(FieldName),
        textField: Type.Optional(FieldName),
      },
      {
        description:
          "What the records are: one code for all (`code`), or the field holding each record's code (`field`, text or select) in `system`; `textField` a field with its text as written",
      },
    ),
    category: Type.Optional(
      Type.String({
        description: "The category, where the profile allows more than one (a Condition's problem-list-item or health-concern)",
      }),
    ),
    value: Type.Optional(
      Type.Object(
        {
          field: FieldName,
          unit: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'A UCUM code: mm[Hg], %, kg, mg/dL' })),
        },
        {
          description:
            "An Observation's value: an integer or float field (a Quantity in `unit`), text or select (a string), boolean",
        },
      ),
    ),
    components: Type.Optional(
      Type.Array(Type.Object({ code: Coding, field: FieldName, unit: Type.String({ minLength: 1, maxLength: 50 }) }), {
        maxItems: 20,
        description: "An Observation's components, each a number field (a blood pressure's systolic and diastolic)",
      }),
    ),
    date: Type.Optional(
      Type.Object(
        { field: FieldName },
        {
          description:
            "The date or datetime field of when it was observed (Observation), began (Condition, AllergyIntolerance) or was written (MedicationRequest); the record's creation when none",
        },
      ),
    ),
    status: Type.Optional(
      Type.Object(
        { code: Type.Optional(Type.String({ minLength: 1 })), field: Type.Optional(FieldName) },
        { description: "The status every record has (`code`), or the select field holding it, whose options are FHIR's codes" },
      ),
    ),
    intent: Type.Optional(Type.Enum(intentCodes, { description: "A MedicationRequest's intent; `order` when none" })),
    dosage: Type.Optional(Type.Object({ field: FieldName }, { description: "A MedicationRequest's dosage instruction as text" })),
  },
  { description: 'The CDT as a FHIR resource: its records are served as this US Core profile (docs/fhir.md)' },
);

export type CdtFhirMapping = Static<typeof CdtFhir>;
