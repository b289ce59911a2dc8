import { defaultDictionaries } from './default-dictionaries.ts';
import type { Formation } from './schemas.ts';

export interface SectionOptions {
  /** Dictionaries: list internal ones too (DECISIONS §8: `includeInternal`). */
  includeInternal?: boolean;
}

interface Section {
  key: keyof Formation;
  itemKey: string;
  /** A section whose items are not just the document's (dictionaries add the defaults). */
  items?: (formation: Formation, options: SectionOptions) => Record<string, unknown>[];
}

/**
 * Formation sections as the read routes name them (`GET /formations/{version}/{section}`), the
 * document key each reads, and the key that names one item. The kebab-case names follow
 * production (DECISIONS §6).
 */
export const formationSections: Record<string, Section> = {
  territories: { key: 'territories', itemKey: 'name' },
  'security-policies': { key: 'securityPolicies', itemKey: 'name' },
  roles: { key: 'roles', itemKey: 'name' },
  'patient-attributes': { key: 'patientAttributes', itemKey: 'name' },
  'instance-phones': { key: 'instancePhones', itemKey: 'id' },
  programs: { key: 'programs', itemKey: 'name' },
  'goal-templates': { key: 'goalTemplates', itemKey: 'name' },
  pdts: { key: 'pdts', itemKey: 'name' },
  cdts: { key: 'cdts', itemKey: 'name' },
  dictionaries: {
    key: 'dictionaries',
    itemKey: 'name',
    items: (formation, options) =>
      [...defaultDictionaries, ...(formation.dictionaries ?? [])]
        .map((dictionary) => ({ ...dictionary, internal: dictionary.internal ?? false }))
        .filter((dictionary) => options.includeInternal || !dictionary.internal),
  },
};

export function sectionItems(formation: Formation, section: Section, options: SectionOptions): Record<string, unknown>[] {
  return section.items ? section.items(formation, options) : ((formation[section.key] ?? []) as Record<string, unknown>[]);
}
