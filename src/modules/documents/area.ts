import type { Area } from '../../platform/area.ts';
import { documentFiles, documentsAuditActions, documentsPermissions } from './catalog.ts';
import { fhirDocumentReference } from './fhir.ts';
import { documentTypesSection } from './formation.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'documents',
  routes,
  formation: [documentTypesSection],
  permissions: documentsPermissions,
  auditActions: documentsAuditActions,
  files: documentFiles,
  fhir: [fhirDocumentReference],
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
