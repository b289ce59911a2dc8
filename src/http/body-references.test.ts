import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import type { Formation } from '../formation/schemas.ts';
import { createTestInstance, createTestTenant, errorCode, errorPaths, type Response, startApp } from '../test/harness.ts';
import { type Fixtures, fixtureParam, fullFormation, seedFixtures, tenantDigest } from '../test/route-fixtures.ts';

/**
 * References in request bodies. Every body field that names another record (an id) or a configured
 * name (a formation item, an instance, a phone) is in the table below, as one of:
 *
 *  - CHECKED: the value must name a record of the route's tenant, instance and (under a patient)
 *    patient. Another tenant's, another instance's of the same tenant, and another patient's of the
 *    same instance (where they apply) are refused with the row's status and code, and nothing is
 *    written; a valid one is taken.
 *  - FREE_LABEL: stored or read as given, never resolved to a record; the row says why.
 *
 * The OpenAPI document is read like route-checks.test.ts reads it: a body field named `…Id`,
 * `…Ids`, `id`, `ids` or `…Name(s)`, one of `format: uuid`, or one of the configured names below
 * (fax numbers, territories, visit services, ...) that is not in the table fails the test, so a
 * field added tomorrow is classified the day it appears.
 */

const I = '/{tenantName}/{instanceName}';
const A = '/{tenantName}/admin';
const P = `${I}/patients/{patientId}`;

/** Operations whose bodies are left out of the scan, and why. */
const excludedOperations: Record<string, string> = {
  [`PUT ${I}/formations/draft`]:
    'the formation document declares the configured names; its own cross-references are checked at publish (400 FORMATION_INVALID, formation tests)',
};

/** Field paths that hold a configured name without saying so in their own name. */
const configuredNames = [
  /(^|\.)faxNumber$/,
  /(^|\.)patientRegion$/,
  /(^|\.)patientTerritory$/,
  /(^|\.)(patientTerritories|territories)\[\](\.name|\.territories\[\])?$/,
  /(^|\.)fullTerritoriesAccessInstances\[\]$/,
  /(^|\.)encounters\[\]$/,
  /(^|\.)visitServices\[\]\.(name|modifiers\[\])$/,
  /(^|\.)(instances|eventEntities|eventSubtypes)\[\]$/,
  /(^|\.)driver$/,
];

// ---------------------------------------------------------------------------------------------
// The table.

/** What a checked field names: a kind of record or of configured name. */
type Kind =
  | 'user'
  | 'patient'
  | 'encounter'
  | 'calendarEvent'
  | 'assessmentRecord'
  | 'cdtRecord'
  | 'documentFile'
  | 'pdtRecord'
  | 'task'
  | 'instancePhone'
  | 'faxNumber'
  | 'assessment'
  | 'goalTemplate'
  | 'phase'
  | 'encounterTemplate'
  | 'visitService'
  | 'modifier'
  | 'region'
  | 'territory'
  | 'documentType'
  | 'role'
  | 'policy'
  | 'pdtEmailField'
  | 'pdtPhoneField'
  | 'instanceName'
  | 'eventEntity'
  | 'eventSubtype'
  | 'driver';

interface Answer {
  status: number;
  code: string;
}
const INVALID: Answer = { status: 400, code: 'VALIDATION_ERROR' };
const notFound = (code: string): Answer => ({ status: 404, code });

interface Checked extends Answer {
  kind: Kind;
  /** VALIDATION_ERROR: the field its errors name, when not the field's own path (`body.careTeam.0.id`). */
  path?: string;
  /** Body keys the field needs beside it (its list's other fields, the region of a territory). */
  with?: Record<string, unknown> | (() => Record<string, unknown>);
  /** The valid value, when not the kind's own. */
  own?: string;
  /** The refusal is reported per row of a bulk write (`rows[].result`), the request itself answering 200. */
  perRow?: true;
  /** No value is valid here (the list must be empty): only refusals are sent. */
  noValidValue?: true;
}

interface Row {
  op: string;
  field: string;
  checked?: Checked;
  free?: string;
}

type Entry = Omit<Row, 'op'>;
const checked = (field: string, kind: Kind, answer: Answer, extra: Omit<Checked, 'kind' | 'status' | 'code'> = {}): Entry => ({
  field,
  checked: { kind, ...answer, ...extra },
});
const free = (field: string, reason: string): Entry => ({ field, free: reason });
const on = (ops: string | string[], entries: Entry[]): Row[] =>
  [ops].flat().flatMap((op) => entries.map((entry) => ({ op, ...entry })));

const territoryWith = { patientRegion: 'west' };
const patientTerritoriesWith = { patientTerritories: [{ name: 'west', territories: ['california'] }] };
const userTerritoriesWith = { territories: [{ name: 'west', territories: ['california'], instanceName: 'sandbox' }] };
const rolesWith = { roles: [{ permissionName: 'admin', instanceName: 'sandbox' }] };
const policiesWith = { policies: [{ permissionName: 'everything', instanceName: 'sandbox' }] };
const servicesWith = { visitServices: [{ name: 'follow-up', modifiers: ['95'] }] };
const appointment = {
  startDateTime: '2031-02-03T10:00:00.000Z',
  endDateTime: '2031-02-03T10:30:00.000Z',
  eventMode: 'IN-PERSON',
};

const patientFields: Entry[] = [
  checked('careTeam[].id', 'user', INVALID, { path: 'body.careTeam' }),
  checked('careTeamMembers[].id', 'user', INVALID, { path: 'body.careTeam' }),
  checked('preferableInstancePhoneId', 'instancePhone', INVALID),
  checked('patientRegion', 'region', INVALID),
  checked('patientTerritory', 'territory', INVALID, { with: territoryWith }),
  checked('patientTerritories[].name', 'region', INVALID, { with: patientTerritoriesWith, path: 'body.patientTerritories' }),
  checked('patientTerritories[].territories[]', 'territory', INVALID, {
    with: patientTerritoriesWith,
    path: 'body.patientTerritories',
  }),
  free('externalId', "the patient's own key in another system: it finds this patient, it names no other record"),
  free('externalGuid', "the patient's own key in another system (a uuid it chose): not a reference"),
  free('firstName', "a person's name, not a reference"),
  free('lastName', "a person's name, not a reference"),
  free('middleName', "a person's name, not a reference"),
];

const userFields: Entry[] = [
  checked('roles[].instanceName', 'instanceName', INVALID, { with: rolesWith, path: 'body.roles' }),
  checked('roles[].permissionName', 'role', INVALID, { with: rolesWith, path: 'body.roles' }),
  checked('policies[].instanceName', 'instanceName', INVALID, { with: policiesWith, path: 'body.policies' }),
  checked('policies[].permissionName', 'policy', INVALID, { with: policiesWith, path: 'body.policies' }),
  checked('territories[].name', 'region', INVALID, { with: userTerritoriesWith, path: 'body.territories' }),
  checked('territories[].territories[]', 'territory', INVALID, { with: userTerritoriesWith, path: 'body.territories' }),
  checked('territories[].instanceName', 'instanceName', INVALID, { with: userTerritoriesWith, path: 'body.territories' }),
  checked('fullTerritoriesAccessInstances[]', 'instanceName', INVALID, { path: 'body.fullTerritoriesAccessInstances' }),
  free('firstName', "a person's name, not a reference"),
  free('lastName', "a person's name, not a reference"),
  free('terminologyName', 'the name of a terminology the user works in, kept for the client; no terminology is configured here'),
  free('seats[]', 'seat codes of the client’s licensing, kept as given (001)'),
  free('customUserAttributes', "the client's own data about the user"),
  free('statusType', 'a status code kept as given (PROD-SHAPES)'),
];

const taskFields: Entry[] = [
  checked('assignee.id', 'user', INVALID),
  checked('watchers[].id', 'user', INVALID, { path: 'body.watchers' }),
  free(
    'templateName',
    "the task template it came from: tasks made outside a goal (automation, imports) carry other systems' or older formations' names, and the list filter matches what is stored",
  ),
  free('sourceId', 'the record the task came from (with sourceType): an opaque origin, kept as given'),
  free('sourceType', 'the kind of record sourceId names, kept as given'),
];

const calendarFields: Entry[] = [
  checked('hostId', 'user', INVALID),
  checked('participants[].participantId', 'patient', INVALID, { with: { participants: [{ participantRole: 'patient' }] } }),
  free('participants[].participantRole', 'a free-text role (002); `patient` says the participant is a patient, any other a user'),
  free('participants[].participationStatus', 'a status code kept as given (002)'),
  free('eventType', 'a free-text type (002: APPOINTMENT, LEAVE, ENCOUNTER, ...)'),
  free('eventStatus', 'a status code kept as given'),
  free('eventMode', 'a delivery mode kept as given (IN-PERSON, VIDEO, CALL, ...)'),
  free('eventColor', 'a colour to show the event in'),
  free('externalId', "another system's id of the event"),
  free('externalCalendarEventId', "an outside calendar's id of the event"),
  free('schedulerAppointmentId', "an outside scheduler's number for the appointment"),
  free('externalEventMetadata', "an outside calendar's data, kept as given"),
  free('additionalInfo', "the client's own data about the event"),
];

const encounterServiceFields: Entry[] = [
  checked('templateName', 'encounterTemplate', INVALID),
  checked('visitServices[].name', 'visitService', INVALID),
  checked('visitServices[].modifiers[]', 'modifier', INVALID, { with: servicesWith }),
  free('encounterPaymentInfo.status', 'a payment status code kept as given'),
];

const faxFields: Entry[] = [
  checked('patientId', 'patient', notFound('PATIENT_NOT_FOUND')),
  checked('sender.faxNumber', 'faxNumber', INVALID),
  free('receiver.faxNumber', "the outside party's number: any E.164 number"),
];

const contactFields: Entry[] = [
  checked('pdtRecordId', 'pdtRecord', INVALID),
  checked('emailPdtFieldName', 'pdtEmailField', INVALID),
  checked('phonePdtFieldName', 'pdtPhoneField', INVALID),
  checked('secondaryPhonePdtFieldName', 'pdtPhoneField', INVALID),
  free('relation', 'free text: how the contact relates to the patient'),
];

const webhookFields: Entry[] = [
  checked('instances[]', 'instanceName', INVALID, { path: 'body.instances' }),
  checked('eventEntities[]', 'eventEntity', INVALID, { path: 'body.eventEntities' }),
  checked('eventSubtypes[]', 'eventSubtype', INVALID, { path: 'body.eventSubtypes' }),
];

const table: Row[] = [
  ...on([`POST ${I}/patients`, `PATCH ${P}`], patientFields),
  ...on(`PATCH ${I}/patients`, [
    checked('ids[]', 'patient', notFound('PATIENT_NOT_FOUND')),
    checked('careTeam[].id', 'user', INVALID, { path: 'body' }),
    checked('careTeamAdditions[]', 'user', INVALID, { path: 'body' }),
    checked('careTeamReplacements[].to', 'user', INVALID, {
      path: 'body',
      with: { careTeamReplacements: [{ from: '00000000-0000-4000-8000-000000000000' }] },
    }),
    checked('patientRegion', 'region', INVALID),
    checked('patientTerritory', 'territory', INVALID, { with: territoryWith }),
    checked('patientTerritories[].name', 'region', INVALID, { with: patientTerritoriesWith, path: 'body.patientTerritories' }),
    checked('patientTerritories[].territories[]', 'territory', INVALID, {
      with: patientTerritoriesWith,
      path: 'body.patientTerritories',
    }),
    free('careTeamReplacements[].from', 'a selector: it acts on the current members, and a user who is none matches nothing'),
    free('careTeamRemovals[]', 'a selector: it acts on the current members, and a user who is none matches nothing'),
  ]),
  ...on(`POST ${I}/by-filter/patients`, [
    free('ids[]', 'a filter (a read): an id of no patient here matches nothing'),
    free('careTeamMemberId', 'a filter: a user of no care team here matches nothing'),
    free('programName', 'a filter: a program of no enrolment here matches nothing'),
    free('territories[]', 'a filter: a territory of no patient here matches nothing'),
    free('externalId', 'a filter on the patients’ own external keys'),
  ]),
  ...on(
    [`PATCH ${P}/programs/{programName}`, `PATCH ${P}/programs/{programName}/phases`],
    [checked('phaseName', 'phase', INVALID)],
  ),
  ...on(`POST ${P}/care-plan/goals`, [checked('goalTemplateName', 'goalTemplate', INVALID)]),
  ...on(`POST ${P}/care-plan/goals/{goalId}/tasks`, [
    ...taskFields,
    free('patient.id', "ignored: the goal's patient is the task's (the path names it)"),
  ]),
  ...on([`POST ${I}/tasks`, `PATCH ${I}/tasks/{taskId}`], [...taskFields, checked('patient.id', 'patient', INVALID)]),
  ...on(`PATCH ${I}/tasks`, [checked('taskIds[]', 'task', notFound('TASK_NOT_FOUND'))]),
  ...on(`PATCH ${I}/tasks/{taskId}/watchers`, [checked('id', 'user', INVALID)]),
  ...on([`POST ${P}/contacts`, `PATCH ${P}/contacts/{contactId}`], contactFields),
  ...on(`PATCH ${P}/cdts/{cdtName}`, [checked('rows[].id', 'cdtRecord', notFound('DT_RECORD_NOT_FOUND'), { perRow: true })]),
  ...on(`POST ${P}/document-summary`, [
    checked('type', 'documentType', INVALID),
    checked('files[].id', 'documentFile', INVALID, { path: 'body.files', noValidValue: true }),
    free('sourceId', "where the document came from (any kind of record, another system's too): an opaque origin"),
    free('sourceType', 'the kind of record sourceId names, kept as given'),
    free('sourceName', 'the name of the record sourceId names, kept as given'),
  ]),
  ...on(`PUT ${P}/document-summary/{summaryId}`, [
    checked('type', 'documentType', INVALID),
    checked('files[].id', 'documentFile', INVALID),
  ]),
  ...on(
    [`POST ${P}/assessment-records`, `PUT ${P}/assessment-records/{assessmentRecordId}`],
    [
      checked('assessmentName', 'assessment', INVALID),
      checked('encounterId', 'encounter', notFound('ENCOUNTER_NOT_FOUND')),
      free('folderId', "the client's own folder label: this API has no folders"),
    ],
  ),
  ...on([`POST ${I}/calendar/events`, `PUT ${I}/calendar/events/{id}`, `PATCH ${I}/calendar/events/{id}`], calendarFields),
  ...on(
    [`POST ${I}/calendar/work-hours`, `PUT ${I}/calendar/work-hours/{workHoursId}`],
    [checked('psmId', 'user', INVALID), checked('encounters[]', 'encounterTemplate', INVALID)],
  ),
  ...on(`POST ${P}/encounters`, [
    ...encounterServiceFields,
    checked('calendarEventId', 'calendarEvent', INVALID),
    checked('currentScheduledAppointment.hostId', 'user', INVALID, { with: { currentScheduledAppointment: appointment } }),
    checked('currentScheduledAppointment.participants[].participantId', 'patient', INVALID, {
      with: () => ({
        currentScheduledAppointment: { ...appointment, hostId: own.ids.user, participants: [{ participantRole: 'patient' }] },
      }),
    }),
    free('currentScheduledAppointment.externalId', "another system's id of the event"),
    free('currentScheduledAppointment.externalCalendarEventId', "an outside calendar's id of the event"),
    free('currentScheduledAppointment.schedulerAppointmentId', "an outside scheduler's number for the appointment"),
  ]),
  ...on(`PATCH ${P}/encounters/{encounterId}`, encounterServiceFields),
  ...on(`POST ${P}/encounters/{encounterId}/assessments`, [checked('assessmentName', 'assessment', INVALID)]),
  ...on(`PATCH ${P}/encounters/{encounterId}/assessments/{linkId}`, [checked('assessmentRecordId', 'assessmentRecord', INVALID)]),
  ...on(`POST ${I}/payment/patients/{patientId}/payment-methods`, [
    free(
      'paymentMethodId',
      "the payments provider's own id of a method: the provider checks it (400 PAYMENT_METHOD_REJECTED); it names no record here",
    ),
  ]),
  ...on(`POST ${I}/payment/subscriptions`, [
    checked('careMember.id', 'user', notFound('USER_NOT_FOUND')),
    checked('patient.id', 'patient', notFound('PATIENT_NOT_FOUND')),
  ]),
  ...on(
    [`POST ${P}/email-drafts`, `PATCH ${P}/email-drafts/{draftId}`],
    [
      free(
        'templateName',
        'a message template of the client: formation messageTemplates are free JSON with no names to check against',
      ),
      free(
        'attachmentsFromTemplate[]',
        "a template's attachments as the client gives them: stored and echoed, never read back as files",
      ),
      free('patientEmail', "the receiver's address (the patient's or contact's when absent)"),
    ],
  ),
  ...on(`PATCH ${I}/unrecognized-patients/voice-calls/{voiceCallId}`, [
    checked('patientId', 'patient', notFound('PATIENT_NOT_FOUND')),
  ]),
  ...on([`POST ${I}/faxes`, `PATCH ${I}/faxes/{faxId}`], faxFields),
  ...on(`POST ${I}/apps/{appId}/launch`, [checked('patientId', 'patient', notFound('PATIENT_NOT_FOUND'))]),
  ...on(
    [`POST ${A}/identity-providers`, `PATCH ${A}/identity-providers/{providerId}`],
    [free('clientId', "the client id the identity provider gave Cairn: the provider's own key, sent to it as given")],
  ),
  ...on(`POST ${I}/communications`, [
    checked('patientContactId', 'patient', notFound('PATIENT_NOT_FOUND')),
    checked('instancePhoneId', 'instancePhone', { status: 400, code: 'NO_INSTANCE_PHONE' }),
    free('patientContactPhoneNumber', 'the number to reach: the spec lets the caller give any (002)'),
    free('patientContactEmail', 'the address to write to: the caller may give any'),
  ]),
  ...on(`POST ${I}/{communicationId}/messages`, [
    free(
      'attachmentsFromTemplate[]',
      "a template's attachments as the client gives them: stored and echoed, never read back as files",
    ),
  ]),
  ...on(`POST ${I}/sandbox/inbound`, [
    free(
      'to',
      'the address or number a message came in to, as a vendor callback says it: a number no phone has is kept with no phone, like the vendors’ callbacks',
    ),
  ]),
  ...on([`POST ${A}/users`, `PATCH ${A}/users/{userName}`, `PUT ${A}/users/{userName}`], userFields),
  ...on(`PUT ${A}/user-territories/{userId}`, [
    checked('userId', 'user', INVALID),
    checked('territories[].name', 'region', INVALID, { with: userTerritoriesWith, path: 'body.territories' }),
    checked('territories[].territories[]', 'territory', INVALID, { with: userTerritoriesWith, path: 'body.territories' }),
    checked('territories[].instanceName', 'instanceName', INVALID, { with: userTerritoriesWith, path: 'body.territories' }),
    checked('fullTerritoriesAccessInstances[]', 'instanceName', INVALID, { path: 'body.fullTerritoriesAccessInstances' }),
  ]),
  ...on(
    [`POST ${A}/api-clients`, `PATCH ${A}/api-clients/{clientId}`],
    [
      checked('roles[].permissionName', 'role', INVALID, { with: rolesWith, path: 'body.roles' }),
      checked('roles[].instanceName', 'instanceName', INVALID, { with: rolesWith, path: 'body.roles' }),
    ],
  ),
  ...on([`POST ${A}/webhooks`, `PATCH ${A}/webhooks/{webhookId}`], webhookFields),
  ...on(
    [`PUT ${A}/providers/{channel}`, `PUT ${A}/providers/{channel}/instances/{instanceName}`],
    [checked('driver', 'driver', INVALID)],
  ),
];

/** What each checked operation is sent: a body it takes, before the field under test is set. */
const bodies: Record<string, () => Record<string, unknown>> = {
  [`POST ${I}/patients`]: () => ({ firstName: 'Reference', lastName: 'Check' }),
  [`PATCH ${P}`]: () => ({}),
  [`PATCH ${I}/patients`]: () => ({ ids: [own.ids.patient] }),
  [`PATCH ${P}/programs/{programName}`]: () => ({}),
  [`PATCH ${P}/programs/{programName}/phases`]: () => ({}),
  [`POST ${P}/care-plan/goals`]: () => ({}),
  [`POST ${P}/care-plan/goals/{goalId}/tasks`]: () => task(),
  [`POST ${I}/tasks`]: () => task(),
  [`PATCH ${I}/tasks/{taskId}`]: () => ({}),
  [`PATCH ${I}/tasks`]: () => ({ taskIds: [own.ids.task], status: 'IN_PROGRESS' }),
  [`PATCH ${I}/tasks/{taskId}/watchers`]: () => ({}),
  [`POST ${P}/contacts`]: () => ({ name: 'Reference check', pdtRecordId: own.ids.pdtRecord }),
  [`PATCH ${P}/contacts/{contactId}`]: () => ({ pdtRecordId: own.ids.pdtRecord }),
  [`PATCH ${P}/cdts/{cdtName}`]: () => ({ rows: [{ jsonBody: {} }] }),
  [`POST ${P}/document-summary`]: () => ({ type: 'doc-type-others' }),
  [`PUT ${P}/document-summary/{summaryId}`]: () => ({ type: 'doc-type-others' }),
  [`POST ${P}/assessment-records`]: () => ({ assessmentName: 'phq-2' }),
  [`PUT ${P}/assessment-records/{assessmentRecordId}`]: () => ({}),
  [`POST ${I}/calendar/events`]: () => calendarEvent(),
  [`PUT ${I}/calendar/events/{id}`]: () => calendarEvent(),
  [`PATCH ${I}/calendar/events/{id}`]: () => ({}),
  [`POST ${I}/calendar/work-hours`]: () => workHours(),
  [`PUT ${I}/calendar/work-hours/{workHoursId}`]: () => workHours(),
  [`POST ${P}/encounters`]: () => ({ title: 'Reference check' }),
  [`PATCH ${P}/encounters/{encounterId}`]: () => ({}),
  [`POST ${P}/encounters/{encounterId}/assessments`]: () => ({}),
  [`PATCH ${P}/encounters/{encounterId}/assessments/{linkId}`]: () => ({}),
  [`POST ${I}/payment/subscriptions`]: () => ({
    name: 'Reference check',
    billingPeriod: 'MONTHLY',
    careMember: { id: own.ids.user },
    patient: { id: own.ids.patient },
    paymentTypeInfo: { paymentType: 'AUTO_CHARGE' },
    price: { amount: 4900, currency: 'usd' },
    startDate: '2031-01-01T00:00:00.000Z',
    numberOfCycles: 12,
  }),
  [`PATCH ${I}/unrecognized-patients/voice-calls/{voiceCallId}`]: () => ({}),
  [`POST ${I}/faxes`]: () => ({ subject: 'Reference check' }),
  [`POST ${I}/apps/{appId}/launch`]: () => ({}),
  [`PATCH ${I}/faxes/{faxId}`]: () => ({}),
  [`POST ${I}/communications`]: () => ({
    channel: 'SMS',
    patientContactId: own.ids.patient,
    patientContactPhoneNumber: '+14155550187',
  }),
  [`POST ${A}/users`]: () => ({ username: unique('user'), email: `${unique('user')}@example.org` }),
  [`PATCH ${A}/users/{userName}`]: () => ({}),
  [`PUT ${A}/users/{userName}`]: () => ({ username: own.names.username, email: ownEmail, ...rolesWith }),
  [`PUT ${A}/user-territories/{userId}`]: () => ({ userId: own.ids.user, ...userTerritoriesWith }),
  [`POST ${A}/api-clients`]: () => ({ name: unique('client'), ...rolesWith }),
  [`PATCH ${A}/api-clients/{clientId}`]: () => ({}),
  [`POST ${A}/webhooks`]: () => ({ name: unique('hook'), url: 'https://references.example/hook', eventEntities: ['PATIENT'] }),
  [`PATCH ${A}/webhooks/{webhookId}`]: () => ({}),
  [`PUT ${A}/providers/{channel}`]: () => ({ options: { from: 'care@references.example' } }),
  [`PUT ${A}/providers/{channel}/instances/{instanceName}`]: () => ({ options: { from: 'care@references.example' } }),
};

let counter = 0;
const unique = (prefix: string) => `refs-${prefix}-${++counter}`;
const task = () => ({ name: 'Reference check', status: 'TODO', priority: 'LOW', assignee: { id: own.ids.user } });
const calendarEvent = () => ({
  startDateTime: '2031-01-06T10:00:00.000Z',
  endDateTime: '2031-01-06T11:00:00.000Z',
  hostId: own.ids.user,
  participants: [{ participantId: own.ids.patient, participantRole: 'patient' }],
});
const workHours = () => ({
  psmId: own.ids.user,
  type: 'AVAILABILITY',
  startDateTime: '2031-01-01T00:00:00.000Z',
  daysInfo: [{ day: 3, startTime: '09:00:00', endTime: '10:00:00' }],
  encounters: ['intake'],
});

// ---------------------------------------------------------------------------------------------
// Tenant A (instance `sandbox`, two patients' fixtures; instance `elsewhere`) and tenant B.

/** The demo formation with items only this formation has, each named after `tag`. */
function withItems(formation: Formation, tag: string, phone: { id: string; number: string }): Formation {
  const copy = structuredClone(formation);
  copy.assessments = [...(copy.assessments ?? []), { name: `${tag}-assessment`, title: tag, sections: [] } as never];
  copy.goalTemplates = [
    ...(copy.goalTemplates ?? []),
    { ...structuredClone(copy.goalTemplates![1]!), name: `${tag}-goal`, taskTemplates: [] },
  ];
  copy.programs![0]!.phases.push({ name: `${tag}-phase`, title: tag, type: 'DEFAULT' } as never);
  copy.encounterTemplates = [
    ...(copy.encounterTemplates ?? []),
    { name: `${tag}-template`, title: tag, assessmentNames: [], visitServices: [] } as never,
  ];
  copy.visitServices = [
    ...copy.visitServices!.map((service) =>
      service.name === 'follow-up' ? { ...service, modifiers: [...(service.modifiers ?? []), `${tag}-mod`] } : service,
    ),
    { name: `${tag}-service`, title: tag, serviceCost: 100, cancellationFee: 0, preVisitCost: 0, modifiers: [] } as never,
  ];
  copy.territories = [
    ...copy.territories!.map((region) =>
      region.name === 'west' ? { ...region, territories: [...region.territories, `${tag}-west`] } : region,
    ),
    { name: `${tag}-region`, title: tag, territories: [`${tag}-territory`] },
  ];
  copy.documentTypes = [...(copy.documentTypes ?? []), { name: `${tag}-doc`, title: tag, fields: [] } as never];
  copy.securityPolicies = [...(copy.securityPolicies ?? []), { name: `${tag}-policy`, permissions: [] }];
  copy.roles = [...(copy.roles ?? []), { name: `${tag}-role`, policies: [] }];
  copy.pdts = copy.pdts!.map((pdt) =>
    pdt.name === 'caregiver'
      ? {
          ...pdt,
          fields: [
            ...pdt.fields,
            { name: `${tag}-email`, type: 'email' as const },
            { name: `${tag}-phone`, type: 'phone' as const },
          ],
        }
      : pdt,
  );
  copy.instancePhones = [...(copy.instancePhones ?? []), { ...phone, capabilities: ['SMS', 'VOICE_CALL', 'FAX'] }];
  return copy;
}

const app = await startApp();
const formation = fullFormation();
const elsewherePhone = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e21', number: '+14155550121' };
const bPhone = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e22', number: '+14155550122' };
const elsewhereFormation = withItems(formation, 'elsewhere', elsewherePhone);
const bFormation = withItems(formation, 'b', bPhone);

const tenantA = await createTestTenant(app, formation);
const elsewhere = await createTestInstance(tenantA, 'elsewhere', elsewhereFormation);
const tenantB = await createTestTenant(app, bFormation);
// An instance name only B has.
await createTestInstance(tenantB, 'b-only', formation);

const own = await seedFixtures(tenantA, 'own', formation);
/** Another patient of A's instance, with one of every record of its own. */
const sibling = await seedFixtures(tenantA, 'sib', formation);
const otherInstance = await seedFixtures(elsewhere, 'else', elsewhereFormation);
const otherTenant = await seedFixtures(tenantB, 'b', bFormation);
const ownEmail = `${own.marker}@example.org`;
const deletedUser = await (async () => {
  const made = await tenantA.api.post(`${tenantA.admin}/users`, { username: 'refs-deleted', email: 'refs-deleted@example.org' });
  assert.equal(made.status, 201, made.text);
  assert.equal((await tenantA.api.delete(`${tenantA.admin}/users/refs-deleted`)).status, 200);
  return made.body.id as string;
})();

type Case = 'tenant' | 'instance' | 'patient' | 'deleted' | 'unknown';

interface KindValues {
  own: string;
  tenant?: string;
  instance?: string;
  patient?: string;
  deleted?: string;
  unknown: string;
  /** Why some cases do not apply to the kind (shown in the test's diagnostics). */
  note?: string;
}

/** A record id in each place: A's own, A's other patient's, A's other instance's and B's. */
function record(key: string, options: { patientScoped: boolean }): KindValues {
  const id = (fixtures: Fixtures) => {
    const value = fixtures.ids[key];
    assert.ok(value, `no fixture ${key}`);
    return value;
  };
  return {
    own: id(own),
    tenant: id(otherTenant),
    instance: id(otherInstance),
    ...(options.patientScoped ? { patient: id(sibling) } : {}),
    unknown: randomUUID(),
  };
}

/** A configured name in each place: A's own, one only A's other instance declares, one only B declares. */
const name = (ownName: string, tag: (t: string) => string): KindValues => ({
  own: ownName,
  instance: tag('elsewhere'),
  tenant: tag('b'),
  unknown: 'no-such-name',
});

const kinds: Record<Kind, KindValues> = {
  user: {
    own: own.ids.user!,
    tenant: otherTenant.ids.user!,
    deleted: deletedUser,
    unknown: randomUUID(),
    note: 'users belong to the tenant, not an instance (000)',
  },
  patient: { ...record('patient', { patientScoped: false }), patient: sibling.ids.patient! },
  encounter: record('encounter', { patientScoped: true }),
  calendarEvent: record('calendarEvent', { patientScoped: true }),
  assessmentRecord: record('assessmentRecord', { patientScoped: true }),
  cdtRecord: record('cdtRecord', { patientScoped: true }),
  documentFile: record('documentFile', { patientScoped: true }),
  pdtRecord: record('pdtRecord', { patientScoped: false }),
  task: record('task', { patientScoped: false }),
  instancePhone: { own: formation.instancePhones![0]!.id, instance: elsewherePhone.id, tenant: bPhone.id, unknown: randomUUID() },
  faxNumber: {
    own: formation.instancePhones![0]!.number,
    instance: elsewherePhone.number,
    tenant: bPhone.number,
    unknown: '+14155550199',
  },
  assessment: name('phq-2', (tag) => `${tag}-assessment`),
  goalTemplate: name('medication-adherence', (tag) => `${tag}-goal`),
  phase: name('active-coaching', (tag) => `${tag}-phase`),
  encounterTemplate: name('intake', (tag) => `${tag}-template`),
  visitService: name('follow-up', (tag) => `${tag}-service`),
  modifier: name('95', (tag) => `${tag}-mod`),
  region: name('west', (tag) => `${tag}-region`),
  territory: name('california', (tag) => `${tag}-west`),
  documentType: name('doc-type-others', (tag) => `${tag}-doc`),
  role: name('admin', (tag) => `${tag}-role`),
  policy: name('everything', (tag) => `${tag}-policy`),
  pdtEmailField: name('pdtf-email', (tag) => `${tag}-email`),
  pdtPhoneField: name('pdtf-phone', (tag) => `${tag}-phone`),
  instanceName: {
    own: 'sandbox',
    tenant: 'b-only',
    unknown: 'no-such-instance',
    note: "an admin route's instance: any instance of the tenant is valid",
  },
  eventEntity: { own: 'PATIENT', unknown: 'NO_SUCH_ENTITY', note: 'the event catalog is the same for every tenant' },
  eventSubtype: { own: 'PATIENT_CREATED', unknown: 'NO_SUCH_SUBTYPE', note: 'the event catalog is the same for every tenant' },
  driver: { own: 'sandbox', unknown: 'no-such-driver', note: "a channel's drivers are the same for every tenant" },
};

// ---------------------------------------------------------------------------------------------
// The OpenAPI document: each operation's body fields.

type JsonSchema = Record<string, any>;
const document = JSON.parse((await app.server.inject({ method: 'GET', url: '/openapi.json' })).body) as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema?: JsonSchema }> } }>>;
};

interface BodyFields {
  /** Every field path of the body (`careTeam[].id`, `sender.faxNumber`, `ids[]`, `sender`). */
  all: Set<string>;
  /** The leaves that look like references. */
  references: Set<string>;
}

/** Body fields of every operation under `/{tenantName}/` with a JSON body, as route-checks.test.ts finds them. */
const operations = new Map<string, BodyFields>();
for (const [path, methods] of Object.entries(document.paths)) {
  if (!path.startsWith('/{tenantName}/')) continue;
  for (const [method, operation] of Object.entries(methods)) {
    const key = `${method.toUpperCase()} ${path}`;
    const schema = operation.requestBody?.content['application/json']?.schema;
    if (!schema || key in excludedOperations) continue;
    const rule = app.accessTable.get(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    assert.ok(rule, `${key} is not in the access table`);
    const fields: BodyFields = { all: new Set(), references: new Set() };
    walk(schema, '', fields, 0);
    operations.set(key, fields);
  }
}

function walk(schema: JsonSchema, at: string, into: BodyFields, depth: number): void {
  if (!schema || typeof schema !== 'object' || depth > 12) return;
  if (at) into.all.add(at);
  for (const branch of schema.anyOf ?? schema.oneOf ?? schema.allOf ?? []) walk(branch, at, into, depth + 1);
  for (const [property, inner] of Object.entries<JsonSchema>(schema.properties ?? {})) {
    walk(inner, at ? `${at}.${property}` : property, into, depth + 1);
  }
  if (schema.items) walk(schema.items, `${at}[]`, into, depth + 1);
  const leaf = !schema.properties && !schema.items && !(schema.anyOf ?? schema.oneOf ?? schema.allOf);
  const last = at.replaceAll('[]', '').split('.').at(-1) ?? '';
  const looksLikeOne =
    schema.format === 'uuid' || /^ids?$|Ids?$|Names?$/.test(last) || configuredNames.some((pattern) => pattern.test(at));
  if (at && leaf && looksLikeOne) into.references.add(at);
}

// ---------------------------------------------------------------------------------------------
// Sending.

/** A's value of each path parameter, as the fixtures give it. */
function urlOf(op: string): string {
  const path = op.slice(op.indexOf(' ') + 1);
  return path.replace(/\{(\w+)\}/g, (_, param: string) => {
    const value = fixtureParam(own, param, path);
    assert.ok(value !== undefined, `${op}: no fixture for {${param}}`);
    return encodeURIComponent(value);
  });
}

async function send(op: string, body: unknown): Promise<Response> {
  const response = await app.server.inject({
    method: op.slice(0, op.indexOf(' ')) as InjectOptions['method'],
    url: urlOf(op),
    headers: { authorization: `Bearer ${tenantA.adminClient.token}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  let parsed: unknown;
  try {
    parsed = response.body ? JSON.parse(response.body) : undefined;
  } catch {
    parsed = response.body;
  }
  return { status: response.statusCode, body: parsed, headers: response.headers, text: response.body };
}

/** `body` with `field` (`careTeam[].id`) set to `value`, the first item of each list on the way. */
function setField(body: unknown, field: string, value: unknown): unknown {
  const steps = field.split('.').flatMap((part) => (part.endsWith('[]') ? [part.slice(0, -2), 0] : [part]));
  const set = (at: unknown, [step, ...rest]: (string | number)[]): unknown => {
    if (step === undefined) return value;
    if (typeof step === 'number') {
      const list = Array.isArray(at) ? [...at] : [];
      list[0] = set(list[0], rest);
      return list;
    }
    const object = at && typeof at === 'object' && !Array.isArray(at) ? { ...(at as Record<string, unknown>) } : {};
    object[step] = set(object[step], rest);
    return object;
  };
  return set(body, steps);
}

/** The field's own path in a VALIDATION_ERROR: `careTeam[].id` → `body.careTeam.0.id`. */
const errorPathOf = (field: string) => `body.${field.replaceAll('[]', '.0')}`;

/** What the request answered, where the row says the refusal is: the answer, or the bulk row's result. */
function outcome(row: Row, response: Response): { status: number; code: string | undefined; paths: string[] } {
  if (row.checked?.perRow && response.status === 200) {
    const result = (response.body as { rows: { result: { status: number; content: unknown } }[] }).rows[0]!.result;
    const refusal = { status: result.status, body: result.content, headers: {}, text: '' } as Response;
    return { status: result.status, code: result.status >= 400 ? errorCode(refusal) : undefined, paths: [] };
  }
  return {
    status: response.status,
    code: response.status >= 400 ? errorCode(response) : undefined,
    paths: response.status === 400 ? errorPaths(response) : [],
  };
}

/** The operation's body with what the field needs beside it. */
function baseOf(row: Row): Record<string, unknown> {
  const extra = row.checked?.with;
  return { ...bodies[row.op]!(), ...(typeof extra === 'function' ? extra() : extra) };
}

const described: Record<Case, string> = {
  tenant: "another tenant's",
  instance: "another instance's",
  patient: "another patient's",
  deleted: "a deleted user's",
  unknown: 'an unknown',
};

/** The cases a row is sent: those its kind has, another patient's only under a patient. */
function casesOf(row: Row): Case[] {
  const values = kinds[row.checked!.kind];
  const underPatient = row.op.includes('/patients/{patientId}');
  return (['tenant', 'instance', 'patient', 'deleted', 'unknown'] as const).filter(
    (which) => values[which] !== undefined && (which !== 'patient' || underPatient),
  );
}

// ---------------------------------------------------------------------------------------------

describe('references in request bodies', () => {
  const key = (row: Pick<Row, 'op' | 'field'>) => `${row.op} ${row.field}`;

  test('every body field that looks like a reference is in the table, CHECKED or FREE_LABEL', () => {
    const listed = new Set(table.map(key));
    const missing = [...operations].flatMap(([op, fields]) =>
      [...fields.references].filter((field) => !listed.has(`${op} ${field}`)).map((field) => `${op} ${field}`),
    );
    assert.deepEqual(missing, [], 'classify each as CHECKED (and check it) or FREE_LABEL (with its reason)');
    const twice = table.map(key).filter((entry, index, all) => all.indexOf(entry) !== index);
    assert.deepEqual(twice, [], 'listed twice');
    assert.ok(operations.size > 50, `only ${operations.size} operations with a JSON body`);
  });

  test('every row of the table is a field of its operation in the OpenAPI document', () => {
    const stale = table.filter((row) => !operations.get(row.op)?.all.has(row.field)).map(key);
    assert.deepEqual(stale, [], 'rows naming no field: the route or the field is gone');
    for (const op of Object.keys(excludedOperations)) {
      const [method = '', path = ''] = op.split(' ');
      assert.ok(
        document.paths[path]?.[method.toLowerCase()]?.requestBody,
        `${op} is left out, but the document has no such body`,
      );
    }
    for (const row of table) {
      assert.ok(Boolean(row.checked) !== Boolean(row.free), `${key(row)}: CHECKED or FREE_LABEL, not both`);
      if (row.free) assert.ok(row.free.length > 10, `${key(row)}: say why it is a free label`);
      if (row.checked) assert.ok(bodies[row.op], `${row.op}: no body to send`);
    }
  });

  test("CHECKED: another tenant's, another instance's and another patient's value is refused and writes nothing; a valid one is taken", async (t) => {
    const problems: string[] = [];
    const bBefore = await tenantDigest(app, tenantB.tenant.id);
    let requests = 0;
    const rows = table.filter((row) => row.checked);
    // Per operation: every refusal of its fields, the tenant's digest before and after them (one
    // statement each), then each field's valid value.
    for (const op of new Set(rows.map((row) => row.op))) {
      const ofOp = rows.filter((row) => row.op === op);
      const before = await tenantDigest(app, tenantA.tenant.id);
      for (const row of ofOp) {
        const check = row.checked!;
        for (const which of casesOf(row)) {
          const value = kinds[check.kind][which]!;
          const answer = outcome(row, await send(op, setField(baseOf(row), row.field, value)));
          requests += 1;
          const label = `${key(row)} with ${described[which]} value ${value}`;
          if (answer.status !== check.status || answer.code !== check.code) {
            problems.push(`${label}: expected ${check.status} ${check.code}, got ${answer.status} ${answer.code ?? ''}`);
          } else if (check.code === 'VALIDATION_ERROR') {
            const expected = check.path ?? errorPathOf(row.field);
            const named = answer.paths.some(
              (path) =>
                path === expected || path.startsWith(`${expected}.`) || (path !== 'body' && expected.startsWith(`${path}.`)),
            );
            if (!named) problems.push(`${label}: expected an error at ${expected}, got ${JSON.stringify(answer.paths)}`);
          }
        }
      }
      if ((await tenantDigest(app, tenantA.tenant.id)) !== before) problems.push(`${op}: a refused request wrote to the tenant`);
      for (const row of ofOp.filter((candidate) => !candidate.checked!.noValidValue)) {
        const value = row.checked!.own ?? kinds[row.checked!.kind].own;
        const response = await send(op, setField(baseOf(row), row.field, value));
        requests += 1;
        if (outcome(row, response).status >= 300) {
          problems.push(`${key(row)}: the valid value ${value} was refused: ${response.status} ${response.text.slice(0, 400)}`);
        }
      }
    }
    for (const [kind, values] of Object.entries(kinds)) if (values.note) t.diagnostic(`${kind}: ${values.note}`);
    assert.equal(await tenantDigest(app, tenantB.tenant.id), bBefore, 'the other tenant was written to');
    t.diagnostic(`${requests} requests`);
    assert.deepEqual(problems, []);
  });
});
