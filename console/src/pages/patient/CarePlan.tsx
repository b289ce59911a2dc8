import { unwrap } from '@cairn/client';
import { fromDataAndMeta, useLoad, usePaged } from '../../hooks.ts';
import { Table, text, when } from '../../ui.tsx';
import { PatientSection, patientPath, SECTION_SIZE, type SectionProps } from './parts.tsx';

interface GoalRow {
  id: string;
  name: string;
  type: string | null;
  priority: string;
  status: string;
  createdAt: string;
}

/** The care plan: its overview, and its goals (all but removed ones). */
export function CarePlan(props: SectionProps) {
  const { client } = props.session;
  const plan = useLoad(
    () =>
      unwrap(client.GET('/{tenantName}/{instanceName}/patients/{patientId}/care-plan', { params: { path: patientPath(props) } })),
    [client, props.patientId],
  );
  const goals = usePaged(
    async (page) =>
      fromDataAndMeta<GoalRow>(
        await unwrap(
          client.GET('/{tenantName}/{instanceName}/patients/{patientId}/care-plan/goals', {
            params: { path: patientPath(props), query: { page, size: SECTION_SIZE } },
          }),
        ),
      ),
    [client, props.patientId],
  );
  const overview = plan.value?.patientOverview;
  return (
    <PatientSection title="Care plan" busy={plan.loading || goals.loading} error={plan.error ?? goals.error}>
      <p data-testid="care-plan-overview">
        <strong>Overview: </strong>
        {overview?.overview ? overview.overview : plan.loading ? '…' : 'none written yet.'}
        {overview?.updatedAt && (
          <small>
            {' '}
            (by {text(overview.updatedByName)}, {when(overview.updatedAt)})
          </small>
        )}
      </p>
      <Table
        label="Goals"
        list={goals}
        head={['Goal', 'Type', 'Priority', 'Status', 'Created']}
        empty="No goals."
        row={(goal) => (
          <tr key={goal.id} data-goal={goal.name}>
            <td>{goal.name}</td>
            <td>{text(goal.type)}</td>
            <td>{goal.priority}</td>
            <td>{goal.status}</td>
            <td>{when(goal.createdAt)}</td>
          </tr>
        )}
      />
    </PatientSection>
  );
}
