import type { FastifyRequest } from 'fastify';
import { disclose } from '../../../http/access-log.ts';
import { isUuid } from '../../../http/fhir.ts';
import type { Services } from '../../../http/services.ts';
import { findPatient, type PickedPatient, pickPatients } from '../../patients/index.ts';
import type { InstanceServer } from './servers.ts';

/**
 * SMART's standalone patient launch: an app asking for a patient (`launch/patient`, a `patient/`
 * scope) without an EHR launch lets the user pick one on the consent page, among the patients of
 * the instance they may read (PATIENT_READ in it, as Cairn's own API asks). The page lists what a
 * search finds, a short page of them: the list is recorded in the access log under the user, as
 * any answer naming patients is.
 */

/** How many patients the picker lists: the rest are found by searching. */
export const PICKER_SIZE = 20;

/** The signed-in user as the access hook would name them, to ask what they may read here. */
const userOf = (server: InstanceServer, accountId: string) =>
  ({ type: 'USER', id: accountId, tenantId: server.tenant.id, name: '' }) as const;

/** Whether the user may read the instance's patients (and so pick one). */
export async function mayPickPatients(services: Services, server: InstanceServer, accountId: string): Promise<boolean> {
  const access = await services.accessOf(userOf(server, accountId), server.instance.id);
  return access.active && access.permissions.has('PATIENT_READ');
}

/** The patients to pick from, found by `search`, recorded as shown to the user; none when they may read no patient. */
export async function patientChoices(
  services: Services,
  server: InstanceServer,
  request: FastifyRequest,
  accountId: string,
  search: string,
): Promise<PickedPatient[]> {
  if (!(await mayPickPatients(services, server, accountId))) return [];
  const where = { tenantId: server.tenant.id, instanceId: server.instance.id };
  const patients = await pickPatients(services.db, where, search, PICKER_SIZE);
  // A public page: it names its own reader, as a signed link does (modules/files).
  request.accessAttempt = {
    actor: { type: 'USER', id: accountId, name: null, onBehalfOf: null },
    tenantId: where.tenantId,
    instanceId: where.instanceId,
  };
  const ids = patients.map((patient) => patient.id);
  disclose(request, ids, ids);
  return patients;
}

/** Whether the patient picked is one the user may pick: of this instance, and the user may read patients. */
export async function mayHavePatient(
  services: Services,
  server: InstanceServer,
  accountId: string,
  patientId: string,
): Promise<boolean> {
  if (!isUuid(patientId) || !(await mayPickPatients(services, server, accountId))) return false;
  return (
    (await findPatient(services.db, { tenantId: server.tenant.id, instanceId: server.instance.id }, patientId)) !== undefined
  );
}
