import { uuidv7 } from '../../db/ids.ts';
import type { Work } from '../../events/work.ts';
import type { Formation } from '../../formation/schemas.ts';
import type { Context } from '../../http/context.ts';
import { Records } from '../../records/handle.ts';
import { type PatientRow, requirePatient, withPatient } from '../../records/patient-scope.ts';
import type { CdtRecordRow } from '../../records/store.ts';
import { ApiError, type FieldError, validationError } from '../../wire/errors.ts';
import {
  type AppointmentInputBody,
  attachEventIn,
  cancelEventIn,
  createEventIn,
  detachEventIn,
  type EventRow,
  findEvent,
  recordPlace,
} from '../calendar/index.ts';
import type { EncounterTemplateDefinition } from './formation.ts';
import { checkMove, initialStatuses, locationFor, priceServices, totals } from './rules.ts';
import type { EncounterCreateBody, EncounterPatchBody } from './schemas.ts';
import { lockEncounterOf, partsOf } from './store.ts';
import {
  ASSESSMENT_LINK,
  assessmentLinkType,
  DISPOSITION,
  dispositionType,
  type EncounterStatus,
  encounterSource,
  encounterType,
} from './types.ts';
import { type EncounterView, encounterViews } from './views.ts';

/**
 * Encounters (002 "Encounter", DECISIONS §7): CDT records of `__encounter__` under a patient,
 * written through the records kernel in the unit of work. An encounter made with its appointment
 * makes, in the same transaction, the calendar event, the disposition and the template's
 * assessment links: a failure anywhere leaves none of them.
 */

/** The handles on the three record types; made before a write opens (they read the formation). */
export async function encounterRecords(ctx: Context) {
  const formation = await ctx.formation();
  const [encounters, dispositions, links] = await Promise.all([
    Records.system(ctx, encounterType),
    Records.system(ctx, dispositionType),
    Records.system(ctx, assessmentLinkType),
  ]);
  return { formation, encounters, dispositions, links };
}
export type EncounterRecords = Awaited<ReturnType<typeof encounterRecords>>;

/** DECISIONS §7: a FINALIZED encounter, and what hangs off it, is read-only without its own permission. */
export function guardFinalized(ctx: Context, encounter: CdtRecordRow): void {
  const status = (encounter.values as Record<string, unknown>).status;
  if (status === 'FINALIZED' && !ctx.can('ENCOUNTER_FINALIZED_UPDATE')) {
    throw new ApiError(
      'ACCESS_DENIED',
      { permission: 'ENCOUNTER_FINALIZED_UPDATE', encounterId: encounter.id },
      'This encounter is FINALIZED: changing it needs ENCOUNTER_FINALIZED_UPDATE',
    );
  }
}

/** An assessment link's values: the formation's assessment by name (400 when it has none). */
export function linkValues(formation: Formation, assessmentName: string, fromTemplate: boolean, path: string) {
  const assessment = (formation.assessments ?? []).find((candidate) => candidate.name === assessmentName);
  if (!assessment) throw validationError([{ path, message: `no assessment "${assessmentName}" in the formation` }]);
  return {
    fromTemplate,
    assessmentTitle: assessment.title ?? assessment.name,
    relation: 'ASSESSMENT',
    assessmentName,
  };
}

/** The appointment as the calendar makes it: an ENCOUNTER event with the patient among its participants, the template's mode and colour by default. */
function appointmentEvent(
  appointment: AppointmentInputBody,
  patientId: string,
  template: EncounterTemplateDefinition | undefined,
) {
  const participants = appointment.participants ?? [];
  const hasPatient = participants.some(
    (p) => p.participantRole.toLowerCase() === 'patient' && p.participantId.toLowerCase() === patientId,
  );
  return {
    ...appointment,
    eventType: appointment.eventType ?? 'ENCOUNTER',
    eventMode: appointment.eventMode ?? template?.deliveryMethod ?? null,
    eventColor: appointment.eventColor ?? template?.encounterColor ?? null,
    eventTitle: appointment.eventTitle ?? template?.title ?? null,
    participants: hasPatient ? participants : [...participants, { participantId: patientId, participantRole: 'patient' }],
  };
}

export async function createEncounter(ctx: Context, patientId: string, body: EncounterCreateBody): Promise<EncounterView> {
  const { formation, encounters, dispositions, links } = await encounterRecords(ctx);
  const id = uuidv7();
  const row = await withPatient(ctx, patientId, async (w, patient) => {
    const errors: FieldError[] = [];
    const template = body.templateName ? formation.encounterTemplates?.find((t) => t.name === body.templateName) : undefined;
    if (body.templateName && !template)
      errors.push({ path: 'body.templateName', message: `no encounter template "${body.templateName}" in the formation` });
    const status: EncounterStatus = body.status ?? 'DRAFT';
    if (!initialStatuses.includes(status))
      errors.push({
        path: 'body.status',
        message: `an encounter starts as ${initialStatuses.join(', ')}; ${status} is reached by a change`,
      });
    if (body.currentScheduledAppointment && body.calendarEventId)
      errors.push({
        path: 'body.calendarEventId',
        message: 'give either calendarEventId or currentScheduledAppointment, not both',
      });
    // The appointment is the encounter's patient's: no other patient among its participants.
    for (const [index, participant] of (body.currentScheduledAppointment?.participants ?? []).entries()) {
      if (participant.participantRole.toLowerCase() === 'patient' && participant.participantId.toLowerCase() !== patient.id)
        errors.push({
          path: `body.currentScheduledAppointment.participants.${index}.participantId`,
          message: "an encounter's appointment names the encounter's patient only",
        });
    }
    const requested = body.visitServices ?? (template?.visitServices ?? []).map((name) => ({ name }));
    const services = priceServices(formation, requested, errors);
    if (errors.length > 0) throw validationError(errors);

    let event: EventRow | undefined;
    if (body.currentScheduledAppointment) {
      event = await createEventIn(ctx, w, appointmentEvent(body.currentScheduledAppointment, patient.id, template), {
        encounterId: id,
        path: 'body.currentScheduledAppointment',
      });
    } else if (body.calendarEventId) {
      event = await attachEventIn(
        ctx,
        w,
        body.calendarEventId.toLowerCase(),
        { id, patientId: patient.id },
        'body.calendarEventId',
      );
    }
    const location = locationFor(event?.event_mode, body.location, patient.phone, errors);
    if (errors.length > 0) throw validationError(errors);
    // An in-person appointment's place is one of the instance's (FHIR's Location).
    await recordPlace(w, ctx.scope, event, location);

    const dispositionId = event ? uuidv7() : null;
    const created = await encounters.create(
      w,
      {
        title: body.title ?? template?.title ?? null,
        description: body.description ?? template?.encounterDescription ?? null,
        instruction: body.instruction ?? template?.encounterInstruction ?? null,
        notes: body.notes ?? null,
        color: body.color ?? template?.encounterColor ?? null,
        status,
        type: body.templateName ?? null,
        templateName: body.templateName ?? null,
        templateTitle: template?.title ?? null,
        timezone: body.timezone ?? event?.timezone ?? null,
        location,
        responsibleParty: body.responsibleParty ?? null,
        calendarEventId: event?.id ?? null,
        dispositionId,
        ownerUserId: event?.host_id ?? (ctx.caller?.type === 'USER' ? ctx.caller.id : null),
        activeUserId: ctx.caller?.type === 'USER' ? ctx.caller.id : null,
        visitServices: services,
        ...totals(services),
        encounterPaymentInfo: body.encounterPaymentInfo ?? null,
      },
      { patientId: patient.id, id },
    );
    if (event && dispositionId) {
      // DECISIONS §7: an encounter with an appointment has a disposition and its template's assessment links.
      await dispositions.create(w, {}, { patientId: patient.id, source: encounterSource(id), id: dispositionId });
      for (const [index, name] of (template?.assessmentNames ?? []).entries()) {
        const values = linkValues(formation, name, true, `body.templateName.assessmentNames.${index}`);
        await links.create(w, values, { patientId: patient.id, source: encounterSource(id) });
      }
    }
    return created;
  });
  return (await encounterViews(ctx, [row])).views[0] as EncounterView;
}

export async function getEncounter(ctx: Context, patientId: string, encounterId: string): Promise<EncounterView> {
  const encounters = await Records.system(ctx, encounterType);
  await requirePatient(ctx, patientId);
  const row = await encounters.require(ctx.db, encounterId, { patientId });
  return (await encounterViews(ctx, [row])).views[0] as EncounterView;
}

/** Fields a PATCH copies as given (null clears). */
const plainFields = [
  'title',
  'description',
  'instruction',
  'notes',
  'color',
  'timezone',
  'responsibleParty',
  'encounterPaymentInfo',
] as const;

/** PATCH: the fields given; a status change must be an allowed move; FINALIZED ones need their own permission. */
export async function updateEncounter(
  ctx: Context,
  patientId: string,
  encounterId: string,
  body: EncounterPatchBody,
): Promise<EncounterView> {
  const { formation, encounters } = await encounterRecords(ctx);
  const row = await withPatient(ctx, patientId, async (w, patient) => {
    const existing = await encounters.require(w.db, encounterId, { patientId, forUpdate: true });
    guardFinalized(ctx, existing);
    const values = existing.values as Record<string, unknown>;
    const current = (values.status as EncounterStatus | undefined) ?? 'DRAFT';
    const errors: FieldError[] = [];
    const changes: Record<string, unknown> = {};
    for (const field of plainFields) if (body[field] !== undefined) changes[field] = body[field];
    if (body.status !== undefined) {
      checkMove(current, body.status);
      changes.status = body.status;
    }
    if (body.templateName !== undefined) {
      const template = body.templateName ? formation.encounterTemplates?.find((t) => t.name === body.templateName) : undefined;
      if (body.templateName && !template)
        errors.push({ path: 'body.templateName', message: `no encounter template "${body.templateName}" in the formation` });
      Object.assign(changes, {
        templateName: body.templateName,
        type: body.templateName,
        templateTitle: template?.title ?? null,
      });
    }
    if (body.visitServices !== undefined) {
      const services = priceServices(formation, body.visitServices, errors);
      Object.assign(changes, { visitServices: services, ...totals(services) });
    }
    const eventId = typeof values.calendarEventId === 'string' ? values.calendarEventId : undefined;
    if (body.location !== undefined) {
      const event = eventId ? await findEvent(w.db, ctx.scope, eventId) : undefined;
      changes.location = locationFor(event?.event_mode, body.location, patient.phone, errors);
      if (errors.length === 0) await recordPlace(w, ctx.scope, event, changes.location as string | null);
    }
    if (errors.length > 0) throw validationError(errors);
    const updated = await encounters.change(w, existing, changes);
    if (changes.status === 'FINALIZED' && current !== 'FINALIZED') {
      // Invoices hang off this one (a SELF_PAY encounter with visit services is billed).
      w.emit({
        subtype: 'ENCOUNTER_FINALIZED',
        recordId: existing.id,
        patientId: existing.patient_id,
        data: { status: 'FINALIZED', responsibleParty: (updated.values as Record<string, unknown>).responsibleParty ?? null },
      });
    }
    if (changes.status === 'CANCELLED' && current !== 'CANCELLED' && eventId) await cancelEventIn(ctx, w, eventId);
    return updated;
  });
  return (await encounterViews(ctx, [row])).views[0] as EncounterView;
}

/**
 * DELETE (200, empty): the encounter, its disposition, assessment links and comments. Its
 * calendar event stays, as an appointment no encounter is built on.
 */
export async function deleteEncounter(ctx: Context, patientId: string, encounterId: string): Promise<void> {
  const { encounters, dispositions, links } = await encounterRecords(ctx);
  await withPatient(ctx, patientId, async (w) => {
    const existing = await encounters.require(w.db, encounterId, { patientId, forUpdate: true });
    guardFinalized(ctx, existing);
    for (const part of await partsOf(w.db, ctx.scope, [existing.id], [DISPOSITION, ASSESSMENT_LINK], { forUpdate: true })) {
      await (part.cdt_name === DISPOSITION ? dispositions : links).remove(w, part);
    }
    const eventId = (existing.values as Record<string, unknown>).calendarEventId;
    if (typeof eventId === 'string') await detachEventIn(ctx, w, eventId);
    // Comments go with the record (their foreign key cascades).
    await encounters.remove(w, existing);
  });
}

/**
 * An encounter that another area's record names in its body (an assessment record's `encounterId`):
 * one of the patient's in this instance, held until the write ends; 404 ENCOUNTER_NOT_FOUND otherwise
 * (another tenant's, another instance's, another patient's or no encounter). Its id, as stored.
 */
export async function requireEncounterOf(ctx: Context, w: Work, patientId: string, encounterId: string): Promise<string> {
  const found = await lockEncounterOf(w.db, ctx.scope, patientId, encounterId.toLowerCase());
  if (!found) throw new ApiError('ENCOUNTER_NOT_FOUND', { encounterId, patientId });
  return found.id;
}

/** A change to a part of an encounter is the encounter's too: its ENCOUNTER_UPDATED names the part. */
export function partChanged(w: Work, encounter: CdtRecordRow, part: 'comments' | 'disposition' | 'assessmentLinks'): void {
  w.emit({
    subtype: 'ENCOUNTER_UPDATED',
    recordId: encounter.id,
    patientId: encounter.patient_id,
    data: { changedFields: [part] },
  });
}

/** The encounter, held for a write to one of its parts (FINALIZED ones need their own permission). */
export async function encounterForPart(
  ctx: Context,
  w: Work,
  encounters: EncounterRecords['encounters'],
  patient: PatientRow,
  encounterId: string,
): Promise<CdtRecordRow> {
  // Held for update: a part's write may change the encounter too (its first disposition), and parts
  // of one encounter are written one at a time.
  const encounter = await encounters.require(w.db, encounterId, { patientId: patient.id, forUpdate: true });
  guardFinalized(ctx, encounter);
  return encounter;
}
