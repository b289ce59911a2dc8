import { unwrap } from '@cairn/client';
import { useLoad } from '../../hooks.ts';
import type { Session } from '../../session.ts';
import { day, ErrorMessage, text } from '../../ui.tsx';
import { AccessHistory } from './AccessHistory.tsx';
import { Assessments } from './Assessments.tsx';
import { CarePlan } from './CarePlan.tsx';
import { CareTeam, type CareUser } from './CareTeam.tsx';
import { Documents } from './Documents.tsx';
import { Encounters } from './Encounters.tsx';
import { Messages } from './Messages.tsx';
import { OpenApp } from './OpenApp.tsx';
import { Programs } from './Programs.tsx';
import { Tasks } from './Tasks.tsx';

/** The fields of a patient the page shows. */
export interface PatientView {
  id: string;
  firstName: string;
  middleName: string | null;
  lastName: string;
  birthDate: string | null;
  gender: string | null;
  mrn: string | null;
  externalId: string | null;
  phone: string | null;
  email: string | null;
  timezone: string | null;
  patientRegionTitle: string | null;
  patientRegion: string | null;
  primaryLanguage: string | null;
  careTeam: CareUser[];
}

export const fullName = (patient: Pick<PatientView, 'firstName' | 'middleName' | 'lastName'>) =>
  [patient.firstName, patient.middleName, patient.lastName].filter(Boolean).join(' ');

/** A patient's page: the record's key facts, then each section loaded on its own with its own error. */
export function PatientPage({ session, patientId, go }: { session: Session; patientId: string; go: (to: string) => void }) {
  const { client, tenantName, instanceName } = session;
  const patient = useLoad(
    async () =>
      (await unwrap(
        client.GET('/{tenantName}/{instanceName}/patients/{patientId}', {
          params: { path: { tenantName, instanceName, patientId } },
        }),
      )) as unknown as PatientView,
    [client, patientId],
  );
  const back = (
    <p>
      <a
        href="/console/patients"
        onClick={(event) => {
          event.preventDefault();
          go('patients');
        }}
      >
        ← All patients
      </a>
    </p>
  );
  const record = patient.value;
  if (!record) {
    return (
      <div aria-busy={patient.loading ? 'true' : undefined}>
        {back}
        <h1>Patient</h1>
        <ErrorMessage error={patient.error} />
      </div>
    );
  }
  const sections = { session, patientId };
  const facts: [string, string][] = [
    ['Born', day(record.birthDate)],
    ['Gender', text(record.gender)],
    ['MRN', text(record.mrn)],
    ['External id', text(record.externalId)],
    ['Phone', text(record.phone)],
    ['Email', text(record.email)],
    ['Language', text(record.primaryLanguage)],
    ['Timezone', text(record.timezone)],
    ['Region', text(record.patientRegionTitle ?? record.patientRegion)],
  ];
  return (
    <>
      {back}
      <header class="patient-header">
        <h1>{fullName(record)}</h1>
        <dl class="facts" data-testid="patient-facts">
          {facts.map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </header>
      <div class="patient-sections">
        <OpenApp {...sections} />
        <CareTeam members={record.careTeam} />
        <Programs {...sections} />
        <CarePlan {...sections} />
        <Tasks {...sections} />
        <Documents {...sections} />
        <Assessments {...sections} />
        <Encounters {...sections} />
        <Messages {...sections} />
        <AccessHistory {...sections} />
      </div>
    </>
  );
}
