import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exportItems, pageObjectItems, tokenPageItems, unwrap } from '../src/index.ts';
import { clientOf, demoTenant, listening, sampleFile } from './cairn.ts';

/**
 * One flow through each area of the API, every call typed from the server's schemas: what a
 * create answers can be read back. One tenant (the demo formation) serves the whole file.
 */

const server = await listening({}, { env: { CAIRN_EXPORT_SETTLE_MS: '0' } });
const { at, credentials } = await demoTenant(server);
const cairn = clientOf(server, credentials);
const instancePhone = '+14155550100';

const coordinator = await unwrap(
  cairn.POST('/{tenantName}/admin/users', {
    params: { path: { tenantName: at.tenantName } },
    body: {
      username: 'casey.morgan',
      email: 'casey@example.org',
      firstName: 'Casey',
      lastName: 'Morgan',
      roles: [{ permissionName: 'care-coordinator', instanceName: at.instanceName }],
    },
  }),
);
const patient = await unwrap(
  cairn.POST('/{tenantName}/{instanceName}/patients', {
    params: { path: at },
    body: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.org', phone: '+14155550123' },
  }),
);
const ofPatient = { ...at, patientId: patient.id };

/** A multipart body of files: openapi-fetch sends a FormData as it is (the document types the form's parts). */
function filesForm(field: string, ...files: { name: string; kind: 'pdf' | 'png' }[]) {
  const form = new FormData();
  for (const file of files) form.append(field, new Blob([new Uint8Array(sampleFile(file.kind, 256))]), file.name);
  return form as never;
}

describe('one flow per area', () => {
  test('patients: create, read, change', async () => {
    const read = await unwrap(cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}', { params: { path: ofPatient } }));
    assert.equal(read.firstName, 'Ada');
    const changed = await unwrap(
      cairn.PATCH('/{tenantName}/{instanceName}/patients/{patientId}', {
        params: { path: ofPatient },
        body: { middleName: 'King' },
      }),
    );
    assert.equal(changed.middleName, 'King');
  });

  test('programs: enrol, read the current enrolment', async () => {
    const path = { ...ofPatient, programName: 'diabetes-management' };
    await unwrap(
      cairn.PATCH('/{tenantName}/{instanceName}/patients/{patientId}/programs/{programName}', { params: { path }, body: {} }),
    );
    const current = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/programs/current/{programName}', { params: { path } }),
    );
    assert.equal(current.programName, 'diabetes-management');
    assert.equal(current.status, 'IN_PROGRESS');
  });

  test('care plan: a goal from its template, with its tasks', async () => {
    const goal = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/patients/{patientId}/care-plan/goals', {
        params: { path: ofPatient },
        body: { goalTemplateName: 'lower-hba1c' },
      }),
    );
    const path = { ...ofPatient, goalId: goal.id };
    const read = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/care-plan/goals/{goalId}', { params: { path } }),
    );
    assert.equal(read.details.id, goal.id);
    assert.equal(read.tasks.length, 2);
  });

  test('tasks: create, read', async () => {
    const task = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/tasks', {
        params: { path: at },
        body: {
          name: 'Call Ada',
          status: 'TODO',
          priority: 'HIGH',
          assignee: { id: coordinator.id },
          patient: { id: patient.id },
        },
      }),
    );
    const read = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/tasks/{taskId}', { params: { path: { ...at, taskId: task.id } } }),
    );
    assert.equal(read.name, 'Call Ada');
    assert.equal(read.assignee?.id, coordinator.id);
  });

  test('contacts: create, read', async () => {
    const contact = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/patients/{patientId}/contacts', {
        params: { path: ofPatient },
        body: { name: 'Byron', relation: 'parent', email: 'byron@example.org' },
      }),
    );
    const read = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/contacts/{contactId}', {
        params: { path: { ...ofPatient, contactId: contact.id } },
      }),
    );
    assert.equal(read.name, 'Byron');
  });

  test('PDT records: create, read', async () => {
    const path = { ...at, pdtName: 'caregiver' };
    const record = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/pdts/{pdtName}', {
        params: { path },
        body: { 'pdtf-first-name': 'Mary', 'pdtf-last-name': 'Somerville' },
      }),
    );
    const read = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/pdts/{pdtName}/{pdtId}', { params: { path: { ...path, pdtId: record.id } } }),
    );
    assert.equal(read.jsonBody['pdtf-first-name'], 'Mary');
  });

  test('CDT records: create, read, list', async () => {
    const path = { ...ofPatient, cdtName: 'vitals' };
    const record = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/patients/{patientId}/cdts/{cdtName}', {
        params: { path },
        body: { 'cdtf-systolic': 120, 'cdtf-diastolic': 80 },
      }),
    );
    const read = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/cdts/{cdtName}/{recordId}', {
        params: { path: { ...path, recordId: record.id } },
      }),
    );
    assert.equal(read.jsonBody['cdtf-systolic'], 120);
    // The list nests its page object under `data`.
    const all = [];
    for await (const one of pageObjectItems((page) =>
      unwrap(
        cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/cdts/{cdtName}', { params: { path, query: { page } } }),
      ).then((body) => body.data),
    ))
      all.push(one.id);
    assert.deepEqual(all, [record.id]);
  });

  test('dictionaries: add records, read them', async () => {
    const path = { ...at, dictionaryName: 'referral-sources' };
    await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/dictionaries/{dictionaryName}', {
        params: { path },
        body: { records: [{ values: { code: 'GP', label: 'General practitioner' } }] },
      }),
    );
    const dictionary = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/dictionaries/{dictionaryName}', { params: { path } }),
    );
    assert.deepEqual(
      dictionary.records.map((record) => record.values.code),
      ['GP'],
    );
  });

  test('documents and files: a summary, a file uploaded, its link and its bytes', async () => {
    const summary = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/patients/{patientId}/document-summary', {
        params: { path: ofPatient },
        body: { type: 'lab-report' },
      }),
    );
    const path = { ...ofPatient, summaryId: summary.id };
    const files = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/patients/{patientId}/document-summary/{summaryId}/files', {
        params: { path },
        body: filesForm('files', { name: 'results.pdf', kind: 'pdf' }),
      }),
    );
    const file = files[0]!;
    const described = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/files/{fileId}', { params: { path: { ...at, fileId: file.id } } }),
    );
    assert.equal(described.contentType, 'application/pdf');
    const bytes = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/document-summary/{summaryId}/files/{fileId}', {
        params: { path: { ...path, fileId: file.id } },
        parseAs: 'arrayBuffer',
      }),
    );
    assert.deepEqual(Buffer.from(bytes), sampleFile('pdf', 256));
  });

  test('assessments: a record, its answers, read back', async () => {
    const record = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/patients/{patientId}/assessment-records', {
        params: { path: ofPatient },
        body: { assessmentName: 'phq-2' },
      }),
    );
    const path = { ...ofPatient, assessmentRecordId: record.id };
    await unwrap(
      cairn.PUT('/{tenantName}/{instanceName}/patients/{patientId}/assessment-records/{assessmentRecordId}/answers', {
        params: { path },
        body: { '_phq-2__interest': 'SEVERAL_DAYS' },
      }),
    );
    const read = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/assessment-records/{assessmentRecordId}', {
        params: { path },
      }),
    );
    assert.equal(read.answers['_phq-2__interest'], 'SEVERAL_DAYS');
  });

  test('calendar: an event, read', async () => {
    const event = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/calendar/events', {
        params: { path: at },
        body: {
          eventTitle: 'Check-in',
          startDateTime: '2030-03-04T16:00:00Z',
          endDateTime: '2030-03-04T16:30:00Z',
          hostId: coordinator.id,
          participants: [{ participantId: patient.id, participantRole: 'patient' }],
        },
      }),
    );
    const read = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/calendar/events/{id}', { params: { path: { ...at, id: event.id } } }),
    );
    assert.equal(read.eventTitle, 'Check-in');
  });

  test('encounters, invoices and payments: a self-pay visit finalized is invoiced, and paid with a saved method', async () => {
    const encounter = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/patients/{patientId}/encounters', {
        params: { path: ofPatient },
        body: {
          templateName: 'check-in',
          responsibleParty: 'SELF_PAY',
          currentScheduledAppointment: {
            startDateTime: '2030-03-05T16:00:00Z',
            endDateTime: '2030-03-05T16:15:00Z',
            hostId: coordinator.id,
            eventMode: 'IN-PERSON',
            participants: [],
          },
        },
      }),
    );
    const path = { ...ofPatient, encounterId: encounter.id };
    for (const status of ['OPEN', 'ACTIVE', 'FINALIZED'] as const) {
      await unwrap(
        cairn.PATCH('/{tenantName}/{instanceName}/patients/{patientId}/encounters/{encounterId}', {
          params: { path },
          body: { status },
        }),
      );
    }
    const read = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/encounters/{encounterId}', { params: { path } }),
    );
    assert.equal(read.jsonBody.status, 'FINALIZED');

    // The invoice is made by a background job following ENCOUNTER_FINALIZED.
    await server.app.jobs.drain();
    const invoices = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/invoice/patients/{patientId}/encounters/{encounterId}/invoices', {
        params: { path },
      }),
    );
    const invoice = invoices.content[0]!;
    assert.equal(invoice.status, 'OPEN');
    assert.equal(invoice.amount, 8000);
    await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/payment/patients/{patientId}/payment-methods', {
        params: { path: ofPatient },
        body: { paymentMethodId: 'pm_card_visa' },
      }),
    );
    const paid = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/invoice/invoices/{invoiceId}/pay', {
        params: { path: { ...at, invoiceId: invoice.id } },
      }),
    );
    assert.equal(paid.status, 'PAID');
  });

  test('chat: inbound messages, found by search', async () => {
    await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/patients/{patientId}/chat/inbound', {
        params: { path: ofPatient },
        body: { message: 'My glucose readings are attached' },
      }),
    );
    const hits = [];
    for await (const hit of tokenPageItems((pageToken) =>
      unwrap(
        cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/chat/search', {
          params: { path: ofPatient, query: pageToken ? { pageToken } : { query: 'GLUCOSE' } },
        }),
      ),
    ))
      hits.push(hit.message.message);
    assert.deepEqual(hits, ['My glucose readings are attached']);
  });

  test('email: a draft, sent, read as an email', async () => {
    const draft = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/patients/{patientId}/email-drafts', {
        params: { path: ofPatient },
        body: { subject: 'Your visit', body: 'See you on Tuesday.' },
      }),
    );
    const sent = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/patients/{patientId}/email-drafts/{draftId}/send', {
        params: { path: { ...ofPatient, draftId: draft.id } },
      }),
    );
    const read = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/emails/{emailId}', {
        params: { path: { ...ofPatient, emailId: sent.id } },
      }),
    );
    assert.equal(read.subject, 'Your visit');
  });

  test('SMS: sent through the two-step communication, read in the patient’s list', async () => {
    const { communicationId } = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/communications', {
        params: { path: at },
        body: { channel: 'SMS', patientContactId: patient.id },
      }),
    );
    await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/{communicationId}/messages', {
        params: { path: { ...at, communicationId } },
        body: { message: 'Reminder: your visit is on Tuesday' },
      }),
    );
    const list = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/sms', { params: { path: ofPatient } }),
    );
    const sms = list.content[0]!;
    const read = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/patients/{patientId}/sms/{smsId}', {
        params: { path: { ...ofPatient, smsId: sms.id } },
      }),
    );
    assert.equal(read.message, 'Reminder: your visit is on Tuesday');
  });

  test('voice: a call from an unknown number, read among the unrecognized', async () => {
    const inbound = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/sandbox/inbound', {
        params: { path: at },
        body: { channel: 'VOICE_CALL', from: '+14155550199', to: instancePhone },
      }),
    );
    const read = await unwrap(
      cairn.GET('/{tenantName}/{instanceName}/unrecognized-patients/voice-calls/{voiceCallId}', {
        params: { path: { ...at, voiceCallId: inbound.id } },
      }),
    );
    assert.equal(read.from, '+14155550199');
  });

  test('faxes: a draft, a file added, read', async () => {
    const fax = await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/faxes', {
        params: { path: at },
        body: { subject: 'Referral', patientId: patient.id, receiver: { faxNumber: '+14155550142' } },
      }),
    );
    const path = { ...at, faxId: fax.id };
    await unwrap(
      cairn.POST('/{tenantName}/{instanceName}/faxes/{faxId}/files', {
        params: { path },
        body: filesForm('files', { name: 'referral.pdf', kind: 'pdf' }),
      }),
    );
    const read = await unwrap(cairn.GET('/{tenantName}/{instanceName}/faxes/{faxId}', { params: { path } }));
    assert.equal(read.subject, 'Referral');
    assert.equal(read.files.length, 1);
  });

  test('export: the calendar events, walked to the end', async () => {
    const events = [];
    for await (const event of exportItems((start) =>
      unwrap(
        cairn.GET('/{tenantName}/{instanceName}/export/CALENDAR_EVENT', {
          params: { path: at, query: { pageSize: 1, ...(start === undefined ? {} : { start }) } },
        }),
      ),
    ))
      events.push(event.eventTitle);
    assert.ok(events.includes('Check-in'));
  });
});
