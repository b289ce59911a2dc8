import { Type } from 'typebox';
import { eachPatient, thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { DataAndMeta, dataAndMeta } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { CdtRecord } from '../../records/cdt-view.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody, InstanceParams, PatientParams } from '../../wire/schemas.ts';
import { patientFullEncounterPage } from './full-page.ts';
import { fullEncounter, fullEncounterPage, instanceEncounters, patientEncounters, rangeFilter, userEncounters } from './lists.ts';
import { createEncounter, deleteEncounter, getEncounter, updateEncounter } from './operations.ts';
import {
  addComment,
  addLink,
  changeComment,
  changeDisposition,
  changeLink,
  getDisposition,
  getLink,
  listComments,
  listLinks,
} from './parts.ts';
import {
  CommentInput,
  CommentParams,
  DispositionPatch,
  EncounterComment,
  EncounterCreate,
  EncounterParams,
  EncounterPatch,
  EncounterRecord,
  FullEncounter,
  FullListQuery,
  InstanceListQuery,
  LinkCreate,
  LinkParams,
  LinkPatch,
  PatientFullListQuery,
  PatientListQuery,
  UserFullListQuery,
  UserListQuery,
  UserParams,
} from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Encounters'];
const I = '/:tenantName/:instanceName';
const P = `${I}/patients/:patientId`;
const E = `${P}/encounters/:encounterId`;
const listNote = 'Sort: createdAt (default, newest first) or updatedAt. `status`: one or more statuses.';
const finalizedNote = 'A FINALIZED encounter is read-only without ENCOUNTER_FINALIZED_UPDATE (403).';
/** The writes that change an encounter or its parts: a FINALIZED one needs its own permission too (DECISIONS §7). */
/** A write to an encounter or its parts: its answer shows the patient's `resource` (an answer to a write is a disclosure too). */
const writes = (resource: string) =>
  needs('ENCOUNTER_UPDATE', {
    alsoNeeds: { permission: 'ENCOUNTER_FINALIZED_UPDATE', when: 'the encounter is FINALIZED' },
    discloses: thePatient(resource),
  });

const encounterRoutes: AreaPlugin = async (app) => {
  app.get(
    `${I}/users/:userId/encounters`,
    {
      config: needs('ENCOUNTER_READ', { discloses: eachPatient('ENCOUNTER', 'data', 'patientId') }),
      schema: {
        tags,
        summary: "A user's encounters (data and meta)",
        description: `With \`withCareTeam\` (care-team only, default true): the encounters of the patients whose care team holds the user; with false: those the user hosts. ${listNote}`,
        params: UserParams,
        querystring: UserListQuery,
        response: { 200: DataAndMeta(EncounterRecord), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, status, withCareTeam } = request.query;
      const { data, total } = await userEncounters(
        contextOf(request),
        request.params.userId,
        { status, withCareTeam },
        { page, size, sort },
      );
      return dataAndMeta(data, total, { page, size });
    },
  );

  app.get(
    `${P}/encounters`,
    {
      config: needs('ENCOUNTER_READ', { discloses: thePatient('ENCOUNTER') }),
      schema: {
        tags,
        summary: "A patient's encounters (data and meta)",
        description: listNote,
        params: PatientParams,
        querystring: PatientListQuery,
        response: { 200: DataAndMeta(EncounterRecord), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, status, excludeWithoutCalendarEvent } = request.query;
      const { data, total } = await patientEncounters(
        contextOf(request),
        request.params.patientId,
        { status, excludeWithoutCalendarEvent },
        { page, size, sort },
      );
      return dataAndMeta(data, total, { page, size });
    },
  );

  app.post(
    `${P}/encounters`,
    {
      config: needs('ENCOUNTER_UPDATE', { discloses: thePatient('ENCOUNTER') }),
      schema: {
        tags,
        summary: 'Create an encounter (201)',
        description:
          'With `currentScheduledAppointment` (an event body; the patient is added to its participants), the calendar event, the disposition and the template’s assessment links are made in the same transaction. No other patient may be among its participants (400 VALIDATION_ERROR naming the participant). `calendarEventId` builds the encounter on an existing event of the instance instead: one no other encounter is built on and no other patient is a participant of (400 VALIDATION_ERROR naming body.calendarEventId otherwise). `visitServices` are priced from the formation in integer cents (default: the template’s). The location rule by the appointment’s `eventMode`: CALL needs the patient’s primary phone; VIDEO a complete https address. Statuses start as DRAFT (or OPEN, ACTIVE).',
        params: PatientParams,
        body: EncounterCreate,
        response: { 201: EncounterRecord, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createEncounter(contextOf(request), request.params.patientId, request.body)),
  );

  app.get(
    `${I}/encounters`,
    {
      config: needs('ENCOUNTER_READ', { discloses: eachPatient('ENCOUNTER', 'data', 'patientId') }),
      schema: {
        tags,
        summary: "The instance's encounters (data and meta)",
        description: `\`withCareTeam\` (default true) keeps those of the calling user's care-team patients; an API client passes \`withCareTeam=false\` (000), and true is a 400 for it. ${listNote}`,
        params: InstanceParams,
        querystring: InstanceListQuery,
        response: { 200: DataAndMeta(EncounterRecord), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, status, withCareTeam } = request.query;
      const { data, total } = await instanceEncounters(contextOf(request), { status, withCareTeam }, { page, size, sort });
      return dataAndMeta(data, total, { page, size });
    },
  );

  app.get(
    `${I}/full-encounters`,
    {
      config: needs('ENCOUNTER_READ', { discloses: eachPatient('ENCOUNTER', 'data', 'encounter.patientId') }),
      schema: {
        tags,
        summary: 'Full encounters of the instance (data and meta)',
        description: `Each with its disposition, calendar event, host, assessment links and comments. \`activeUserId\` filters. ${listNote}`,
        params: InstanceParams,
        querystring: FullListQuery,
        response: { 200: DataAndMeta(FullEncounter), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, ...filter } = request.query;
      const { data, total } = await fullEncounterPage(contextOf(request), filter, undefined, { page, size, sort });
      return dataAndMeta(data, total, { page, size });
    },
  );

  app.get(
    `${P}/full-encounters`,
    {
      config: needs('ENCOUNTER_READ', { discloses: thePatient('ENCOUNTER') }),
      schema: {
        tags,
        summary: "A patient's full encounters (data and meta)",
        description: `\`direction\` (ASC or DESC) orders by creation when no \`sort\` is given. ${listNote}`,
        params: PatientParams,
        querystring: PatientFullListQuery,
        response: { 200: DataAndMeta(FullEncounter), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, direction, ...filter } = request.query;
      const { data, total } = await patientFullEncounterPage(contextOf(request), request.params.patientId, filter, {
        page,
        size,
        sort,
        direction,
      });
      return dataAndMeta(data, total, { page, size });
    },
  );

  app.get(
    `${I}/users/:userId/full-encounters`,
    {
      config: needs('ENCOUNTER_READ', { discloses: eachPatient('ENCOUNTER', 'data', 'encounter.patientId') }),
      schema: {
        tags,
        summary: "A user's full encounters (data and meta)",
        description: `The encounters the user hosts; with \`withCareTeam\` (care-team only, default false) those of the patients whose care team holds the user instead. \`from\` and \`to\` (Cairn's names) keep those whose appointment starts in range. ${listNote}`,
        params: UserParams,
        querystring: UserFullListQuery,
        response: { 200: DataAndMeta(FullEncounter), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, from, to, ...filter } = request.query;
      const { data, total } = await fullEncounterPage(
        contextOf(request),
        { ...filter, ...rangeFilter({ from, to }), userId: request.params.userId },
        undefined,
        { page, size, sort },
      );
      return dataAndMeta(data, total, { page, size });
    },
  );

  app.get(
    `${P}/full-encounters/:encounterId`,
    {
      config: needs('ENCOUNTER_READ', { discloses: thePatient('ENCOUNTER') }),
      schema: {
        tags,
        summary: 'One full encounter (a bare object)',
        params: EncounterParams,
        response: { 200: FullEncounter, ...errors },
      },
    },
    async (request) => fullEncounter(contextOf(request), request.params.patientId, request.params.encounterId),
  );

  app.get(
    E,
    {
      config: needs('ENCOUNTER_READ', { discloses: thePatient('ENCOUNTER') }),
      schema: {
        tags,
        summary: 'Read an encounter',
        description:
          'jsonBody carries the appointment’s `startDatetime`/`endDatetime` in UTC and `localStartDatetime`/`localEndDatetime` in the caller’s zone (a user’s own, the host’s for an API client).',
        params: EncounterParams,
        response: { 200: EncounterRecord, ...errors },
      },
    },
    async (request) => getEncounter(contextOf(request), request.params.patientId, request.params.encounterId),
  );

  app.patch(
    E,
    {
      config: writes('ENCOUNTER'),
      schema: {
        tags,
        summary: 'Change an encounter',
        description: `A status change must be an allowed move (400 INVALID_STATUS_TRANSITION naming it). Moving to FINALIZED emits ENCOUNTER_FINALIZED; to CANCELLED cancels the appointment. ${finalizedNote}`,
        params: EncounterParams,
        body: EncounterPatch,
        response: { 200: EncounterRecord, ...errors },
      },
    },
    async (request) => updateEncounter(contextOf(request), request.params.patientId, request.params.encounterId, request.body),
  );

  app.delete(
    E,
    {
      config: writes('ENCOUNTER'),
      schema: {
        tags,
        summary: 'Delete an encounter (200, empty)',
        description: `Its disposition, assessment links and comments go with it; its calendar event stays. ${finalizedNote}`,
        params: EncounterParams,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      await deleteEncounter(contextOf(request), request.params.patientId, request.params.encounterId);
      return reply.send();
    },
  );

  app.get(
    `${E}/comments`,
    {
      config: needs('ENCOUNTER_READ', { discloses: thePatient('ENCOUNTER_COMMENT') }),
      schema: {
        tags,
        summary: "An encounter's comments, oldest first",
        params: EncounterParams,
        response: { 200: Type.Array(EncounterComment), ...errors },
      },
    },
    async (request) => listComments(contextOf(request), request.params.patientId, request.params.encounterId),
  );

  app.post(
    `${E}/comments`,
    {
      config: writes('ENCOUNTER_COMMENT'),
      schema: {
        tags,
        summary: 'Comment on an encounter (201)',
        description: finalizedNote,
        params: EncounterParams,
        body: CommentInput,
        response: { 201: EncounterComment, ...errors },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await addComment(contextOf(request), request.params.patientId, request.params.encounterId, request.body.text)),
  );

  app.patch(
    `${E}/comments/:commentId`,
    {
      config: writes('ENCOUNTER_COMMENT'),
      schema: {
        tags,
        summary: "Change a comment's text",
        params: CommentParams,
        body: CommentInput,
        response: { 200: EncounterComment, ...errors },
      },
    },
    async (request) => {
      const { patientId, encounterId, commentId } = request.params;
      return (await changeComment(contextOf(request), patientId, encounterId, commentId, request.body.text))!;
    },
  );

  app.delete(
    `${E}/comments/:commentId`,
    {
      config: writes('ENCOUNTER_COMMENT'),
      schema: { tags, summary: 'Remove a comment (200, empty)', params: CommentParams, response: { 200: EmptyBody, ...errors } },
    },
    async (request, reply) => {
      const { patientId, encounterId, commentId } = request.params;
      await changeComment(contextOf(request), patientId, encounterId, commentId, null);
      return reply.send();
    },
  );

  app.get(
    `${E}/disposition`,
    {
      config: needs('ENCOUNTER_READ', { discloses: thePatient('ENCOUNTER_DISPOSITION') }),
      schema: {
        tags,
        summary: "An encounter's disposition (a CDT record of __encounter_disposition__)",
        params: EncounterParams,
        response: { 200: CdtRecord, ...errors },
      },
    },
    async (request) => getDisposition(contextOf(request), request.params.patientId, request.params.encounterId),
  );

  app.patch(
    `${E}/disposition`,
    {
      config: writes('ENCOUNTER_DISPOSITION'),
      schema: {
        tags,
        summary: "Change an encounter's disposition",
        description: `A flat map of the disposition form's fields (the formation's \`encounterDisposition\`), as CDT records take; made on first write when the encounter has none. ${finalizedNote}`,
        params: EncounterParams,
        body: DispositionPatch,
        response: { 200: CdtRecord, ...errors },
      },
    },
    async (request) => changeDisposition(contextOf(request), request.params.patientId, request.params.encounterId, request.body),
  );

  app.get(
    `${E}/assessments`,
    {
      config: needs('ENCOUNTER_READ', { discloses: thePatient('ASSESSMENT_RECORD') }),
      schema: {
        tags,
        summary: "An encounter's assessment links (a bare array)",
        params: EncounterParams,
        response: { 200: Type.Array(CdtRecord), ...errors },
      },
    },
    async (request) => listLinks(contextOf(request), request.params.patientId, request.params.encounterId),
  );

  app.post(
    `${E}/assessments`,
    {
      config: writes('ASSESSMENT_RECORD'),
      schema: {
        tags,
        summary: 'Link an assessment to an encounter (201)',
        description: `\`assessmentName\` names an assessment of the formation. ${finalizedNote}`,
        params: EncounterParams,
        body: LinkCreate,
        response: { 201: CdtRecord, ...errors },
      },
    },
    async (request, reply) => {
      const { patientId, encounterId } = request.params;
      return reply.code(201).send(await addLink(contextOf(request), patientId, encounterId, request.body.assessmentName));
    },
  );

  app.get(
    `${E}/assessments/:linkId`,
    {
      config: needs('ENCOUNTER_READ', { discloses: thePatient('ASSESSMENT_RECORD') }),
      schema: { tags, summary: 'One assessment link', params: LinkParams, response: { 200: CdtRecord, ...errors } },
    },
    async (request) => {
      const { patientId, encounterId, linkId } = request.params;
      return getLink(contextOf(request), patientId, encounterId, linkId);
    },
  );

  app.patch(
    `${E}/assessments/:linkId`,
    {
      config: writes('ASSESSMENT_RECORD'),
      schema: {
        tags,
        summary: "Set a link's assessment record",
        description: `\`assessmentRecordId\`: an assessment record of the patient, of the link's assessment (null clears). ${finalizedNote}`,
        params: LinkParams,
        body: LinkPatch,
        response: { 200: CdtRecord, ...errors },
      },
    },
    async (request) => {
      const { patientId, encounterId, linkId } = request.params;
      return (await changeLink(contextOf(request), patientId, encounterId, linkId, request.body.assessmentRecordId))!;
    },
  );

  app.delete(
    `${E}/assessments/:linkId`,
    {
      config: writes('ASSESSMENT_RECORD'),
      schema: {
        tags,
        summary: 'Remove an assessment link (200, empty)',
        params: LinkParams,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const { patientId, encounterId, linkId } = request.params;
      await changeLink(contextOf(request), patientId, encounterId, linkId, undefined);
      return reply.send();
    },
  );
};

export default encounterRoutes;
