import { area as accessLog } from './modules/access-log/area.ts';
import { area as apiClients } from './modules/api-clients/area.ts';
import { area as apps } from './modules/apps/area.ts';
import { area as assessments } from './modules/assessments/area.ts';
import { area as audit } from './modules/audit/area.ts';
import { area as auth } from './modules/auth/area.ts';
import { area as calendar } from './modules/calendar/area.ts';
import { area as carePlan } from './modules/care-plan/area.ts';
import { area as cdts } from './modules/cdts/area.ts';
import { area as chat } from './modules/chat/area.ts';
import { area as communications } from './modules/communications/area.ts';
import { area as contacts } from './modules/contacts/area.ts';
import { area as dictionaries } from './modules/dictionaries/area.ts';
import { area as documents } from './modules/documents/area.ts';
import { area as email } from './modules/email/area.ts';
import { area as encounters } from './modules/encounters/area.ts';
import { area as exportArea } from './modules/export/area.ts';
import { area as faxes } from './modules/faxes/area.ts';
import { area as fhir } from './modules/fhir/area.ts';
import { area as files } from './modules/files/area.ts';
import { area as formation } from './modules/formation/area.ts';
import { area as health } from './modules/health/area.ts';
import { area as invoices } from './modules/invoices/area.ts';
import { area as jobs } from './modules/jobs/area.ts';
import { area as patients } from './modules/patients/area.ts';
import { area as payments } from './modules/payments/area.ts';
import { area as pdts } from './modules/pdts/area.ts';
import { area as programs } from './modules/programs/area.ts';
import { area as providers } from './modules/providers/area.ts';
import { area as sandbox } from './modules/sandbox/area.ts';
import { area as sms } from './modules/sms/area.ts';
import { area as tasks } from './modules/tasks/area.ts';
import { area as users } from './modules/users/area.ts';
import { area as voice } from './modules/voice/area.ts';
import { area as webhooks } from './modules/webhooks/area.ts';
import type { Area } from './platform/area.ts';

/**
 * Every area of the API, one folder each under src/modules: the one list a new area is added to.
 * The order is the route-check fixtures' too: an area comes after those whose records its own name
 * (contacts after PDT records).
 */
export const areas: readonly Area[] = [
  health,
  auth,
  formation,
  users,
  apiClients,
  apps,
  patients,
  programs,
  carePlan,
  tasks,
  pdts,
  contacts,
  cdts,
  dictionaries,
  files,
  documents,
  audit,
  accessLog,
  assessments,
  calendar,
  encounters,
  payments,
  invoices,
  chat,
  email,
  sms,
  voice,
  faxes,
  communications,
  providers,
  sandbox,
  webhooks,
  jobs,
  exportArea,
  fhir,
];
