import { unwrap } from '@cairn/client';
import { fromDataAndMeta, usePaged } from '../../hooks.ts';
import { Table, when } from '../../ui.tsx';
import { PatientSection, SECTION_SIZE, type SectionProps } from './parts.tsx';

interface TaskRow {
  id: string;
  name: string;
  status: string;
  priority: string;
  dueDate: string | null;
  assignee: { name: string } | null;
}

/** The patient's tasks (the tasks list filtered by patient). */
export function Tasks(props: SectionProps) {
  const { client, tenantName, instanceName } = props.session;
  const list = usePaged(
    async (page) =>
      fromDataAndMeta<TaskRow>(
        await unwrap(
          client.GET('/{tenantName}/{instanceName}/tasks', {
            params: { path: { tenantName, instanceName }, query: { page, size: SECTION_SIZE, patientIds: [props.patientId] } },
          }),
        ),
      ),
    [client, props.patientId],
  );
  return (
    <PatientSection title="Tasks" busy={list.loading} error={list.error}>
      <Table
        label="Tasks"
        list={list}
        head={['Task', 'Status', 'Priority', 'Due', 'Assignee']}
        empty="No tasks."
        row={(task) => (
          <tr key={task.id} data-task={task.name}>
            <td>{task.name}</td>
            <td>{task.status}</td>
            <td>{task.priority}</td>
            <td>{when(task.dueDate)}</td>
            <td>{task.assignee?.name ?? '—'}</td>
          </tr>
        )}
      />
    </PatientSection>
  );
}
