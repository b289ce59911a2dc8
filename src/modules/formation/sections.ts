import type { Formation } from './schemas.ts';

/**
 * Formation sections as the read routes name them (`GET /formations/{version}/{section}`), the
 * document key each reads, and the key that names one item. The kebab-case names follow
 * production (DECISIONS §6).
 */
export const formationSections: Record<string, { key: keyof Formation; itemKey: string }> = {
  territories: { key: 'territories', itemKey: 'name' },
  'security-policies': { key: 'securityPolicies', itemKey: 'name' },
  roles: { key: 'roles', itemKey: 'name' },
  'patient-attributes': { key: 'patientAttributes', itemKey: 'name' },
  'instance-phones': { key: 'instancePhones', itemKey: 'id' },
};
