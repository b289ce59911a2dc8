import { unwrap } from '@cairn/client';
import { useState } from 'preact/hooks';
import { fromPageObject, useAction, usePaged } from '../hooks.ts';
import type { Session } from '../session.ts';
import { busyIf, day, ErrorMessage, Field, type PageProps, SearchBar, Section, Table, text } from '../ui.tsx';
import { fullName, PatientPage, type PatientView } from './patient/PatientPage.tsx';
import './patients.css';

const SIZE = 10;

type PatientRow = Pick<
  PatientView,
  'id' | 'firstName' | 'middleName' | 'lastName' | 'birthDate' | 'mrn' | 'phone' | 'email' | 'careTeam'
> & { patientPrograms: { programName: string; programTitle: string | null }[] };

/** Patients: the list searched and paged (`/console/patients`), or one patient's page (`/console/patients/<id>`). */
export function Patients({ session, subpath, go }: PageProps) {
  if (subpath) return <PatientPage key={subpath} session={session} patientId={subpath} go={go} />;
  return <PatientList session={session} go={go} />;
}

function PatientList({ session, go }: { session: Session; go: (to: string) => void }) {
  const { client, tenantName, instanceName } = session;
  const [search, setSearch] = useState('');
  const list = usePaged(
    async (page) =>
      fromPageObject<PatientRow>(
        await unwrap(
          client.GET('/{tenantName}/{instanceName}/patients', {
            params: {
              path: { tenantName, instanceName },
              query: { page, size: SIZE, sort: 'lastName,asc', ...(search ? { search } : {}) },
            },
          }),
        ),
      ),
    [client, search],
  );
  const open = (id: string) => (event: MouseEvent) => {
    event.preventDefault();
    go(`patients/${id}`);
  };

  return (
    <>
      <h1>Patients</h1>
      <Section title="All patients">
        <SearchBar
          id="patient-search"
          label="Name, phone, email, MRN or access code contains"
          onSearch={(found) => {
            list.setPage(0);
            setSearch(found);
          }}
        />
        <ErrorMessage error={list.error} />
        <Table
          label="Patients"
          list={list}
          head={['Name', 'Born', 'MRN', 'Phone', 'Email', 'Programs', 'Care team']}
          row={(row) => (
            <tr key={row.id} data-patient={row.id}>
              <td>
                <a href={`/console/patients/${row.id}`} onClick={open(row.id)}>
                  {fullName(row)}
                </a>
              </td>
              <td>{day(row.birthDate)}</td>
              <td>{text(row.mrn)}</td>
              <td>{text(row.phone)}</td>
              <td>{text(row.email)}</td>
              <td>{row.patientPrograms.map((program) => program.programTitle ?? program.programName).join(', ') || '—'}</td>
              <td>
                {row.careTeam
                  .map((member) => [member.firstName, member.lastName].filter(Boolean).join(' ') || member.username)
                  .join(', ') || '—'}
              </td>
            </tr>
          )}
          empty={<>No patients{search ? ` match “${search}”` : ''}.</>}
          alwaysPaged
        />
      </Section>
      <AddPatient session={session} onAdded={list.reload} open={open} />
    </>
  );
}

/** The page's write: a patient with a first and last name (and an email), the API's field errors beside the fields. */
function AddPatient({
  session,
  onAdded,
  open,
}: {
  session: Session;
  onAdded: () => void;
  open: (id: string) => (event: MouseEvent) => void;
}) {
  const { client, tenantName, instanceName } = session;
  const [firstName, setFirst] = useState('');
  const [lastName, setLast] = useState('');
  const [email, setEmail] = useState('');
  const [added, setAdded] = useState<{ id: string; name: string }>();
  const action = useAction();
  const { fields } = action;

  const submit = (event: Event) => {
    event.preventDefault();
    setAdded(undefined);
    return action.run('add', async () => {
      const made = await unwrap(
        client.POST('/{tenantName}/{instanceName}/patients', {
          params: { path: { tenantName, instanceName } },
          body: { firstName, lastName, ...(email ? { email } : {}) },
        }),
      );
      setFirst('');
      setLast('');
      setEmail('');
      setAdded({ id: made.id, name: `${made.firstName} ${made.lastName}` });
      onAdded();
    });
  };

  return (
    <Section title="Add a patient">
      <form onSubmit={submit} aria-label="Add a patient">
        <div class="grid">
          <Field label="First name" name="firstName" value={firstName} onInput={setFirst} error={fields.firstName} />
          <Field label="Last name" name="lastName" value={lastName} onInput={setLast} error={fields.lastName} />
          <Field label="Email" name="email" value={email} onInput={setEmail} error={fields.email} hint="Optional" />
        </div>
        <ErrorMessage error={action.error} />
        <p aria-live="polite">
          {added && (
            <>
              {added.name} was added:{' '}
              <a href={`/console/patients/${added.id}`} onClick={open(added.id)}>
                open their page
              </a>
            </>
          )}
        </p>
        <button type="submit" aria-busy={busyIf(Boolean(action.busy))} disabled={Boolean(action.busy)}>
          Add patient
        </button>
      </form>
    </Section>
  );
}
