import { Table } from '../../ui.tsx';
import { PatientSection } from './parts.tsx';

export interface CareUser {
  id: string;
  username: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
  pointOfContact: boolean;
  enabled: boolean;
  roles: { name: string; primaryRole: boolean }[];
}

/** The care team, as the patient record carries it. */
export function CareTeam({ members }: { members: CareUser[] }) {
  return (
    <PatientSection title="Care team" busy={false} error={undefined}>
      <Table
        label="Care team"
        list={{ rows: members, loading: false, error: undefined }}
        head={['Name', 'Email', 'Role', 'Point of contact']}
        empty="No care team yet."
        row={(member) => (
          <tr key={member.id} data-member={member.username}>
            <td>
              {[member.firstName, member.lastName].filter(Boolean).join(' ') || member.username}
              {!member.enabled && ' (disabled)'}
            </td>
            <td>{member.email}</td>
            <td>{(member.roles.find((role) => role.primaryRole) ?? member.roles[0])?.name ?? '—'}</td>
            <td>{member.pointOfContact ? 'Yes' : 'No'}</td>
          </tr>
        )}
      />
    </PatientSection>
  );
}
