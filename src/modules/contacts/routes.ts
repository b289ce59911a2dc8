import { thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { PageObject, pageObject, parseSort } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { PatientParams } from '../../wire/schemas.ts';
import { createContact, getContact, listPatientContacts, updateContact } from './operations.ts';
import { Contact, ContactInput, ContactListQuery, ContactParams } from './schemas.ts';
import { sortableContactFields } from './store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Contacts'];
const fillNote =
  'With `pdtRecordId`, naming a field in `emailPdtFieldName`, `phonePdtFieldName` or `secondaryPhonePdtFieldName` without the value copies the value from that field of the PDT record.';

const contactRoutes: AreaPlugin = async (app) => {
  app.get(
    '/:tenantName/:instanceName/patients/:patientId/contacts',
    {
      config: needs('GENERAL_MY_PATIENTS_READ_UPDATE', { discloses: thePatient('CONTACT') }),
      schema: {
        tags,
        summary: "A patient's contacts (page object)",
        description: 'Filters: `active`, `relation` (whole value). Sort: createdAt (default), name, relation.',
        params: PatientParams,
        querystring: ContactListQuery,
        response: { 200: PageObject(Contact), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, active, relation } = request.query;
      const sortKeys = parseSort(sort, sortableContactFields);
      const ctx = contextOf(request);
      const { content, total } = await listPatientContacts(
        ctx,
        request.params.patientId,
        { active, relation },
        { page, size },
        sortKeys,
      );
      return pageObject(content, total, { page, size }, sortKeys.length > 0);
    },
  );

  app.post(
    '/:tenantName/:instanceName/patients/:patientId/contacts',
    {
      config: needs('GENERAL_MY_PATIENTS_READ_UPDATE', { discloses: thePatient('CONTACT') }),
      schema: {
        tags,
        summary: 'Add a contact to a patient (answers 200, as production does)',
        description: `\`pdtRecordId\` must be a live record of this instance whose type is contactable (400 otherwise). \`active\` defaults to true. ${fillNote}`,
        params: PatientParams,
        body: ContactInput,
        response: { 200: Contact, ...errors },
      },
    },
    async (request) => {
      return createContact(contextOf(request), request.params.patientId, request.body);
    },
  );

  app.get(
    '/:tenantName/:instanceName/patients/:patientId/contacts/:contactId',
    {
      config: needs('GENERAL_MY_PATIENTS_READ_UPDATE', { discloses: thePatient('CONTACT') }),
      schema: {
        tags,
        summary: 'Read a contact',
        params: ContactParams,
        response: { 200: Contact, ...errors },
      },
    },
    async (request) => {
      return getContact(contextOf(request), request.params.patientId, request.params.contactId);
    },
  );

  app.patch(
    '/:tenantName/:instanceName/patients/:patientId/contacts/:contactId',
    {
      config: needs('GENERAL_MY_PATIENTS_READ_UPDATE', { discloses: thePatient('CONTACT') }),
      schema: {
        tags,
        summary: 'Change the fields given; pdtRecordId cannot change',
        description: `Sending the contact's own \`pdtRecordId\` is fine; any other value (null included) is a 400. ${fillNote}`,
        params: ContactParams,
        body: ContactInput,
        response: { 200: Contact, ...errors },
      },
    },
    async (request) => {
      const { patientId, contactId } = request.params;
      return updateContact(contextOf(request), patientId, contactId, request.body);
    },
  );
};

export default contactRoutes;
