import { defaultDictionaries, defaultDocumentTypes } from '../../formation/defaults.ts';
import type { Formation } from '../../formation/schemas.ts';

export interface SectionOptions {
  /** Dictionaries: list internal ones too (DECISIONS §8: `includeInternal`). */
  includeInternal?: boolean;
}

type Item = Record<string, unknown>;

interface Section {
  key: keyof Formation;
  itemKey: string;
  /** A section whose items are not just the document's (dictionaries add the defaults). */
  items?: (formation: Formation, options: SectionOptions) => Item[];
  /** A section that is one object, not a list, read whole under this name; its items are its `fields`. */
  singleName?: string;
}

/** Built-in items first, unless the formation redefines one by name. */
function withDefaults(defaults: Item[], own: Item[] | undefined): Item[] {
  const ownNames = new Set((own ?? []).map((item) => item.name));
  return [...defaults.filter((item) => !ownNames.has(item.name)), ...(own ?? [])];
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
  'document-types': {
    key: 'documentTypes',
    itemKey: 'name',
    items: (formation) => withDefaults(defaultDocumentTypes, formation.documentTypes),
  },
  assessments: { key: 'assessments', itemKey: 'name' },
  encounters: { key: 'encounterTemplates', itemKey: 'name' },
  // DECISIONS §7: the disposition formation is named `__encounter_disposition__`.
  'encounter-disposition': { key: 'encounterDisposition', itemKey: 'name', singleName: '__encounter_disposition__' },
  'visit-services': { key: 'visitServices', itemKey: 'name' },
};

export function sectionItems(formation: Formation, section: Section, options: SectionOptions): Item[] {
  if (section.items) return section.items(formation, options);
  if (section.singleName) return ((formation[section.key] as { fields?: Item[] } | undefined)?.fields ?? []) as Item[];
  return (formation[section.key] ?? []) as Item[];
}

/** What the section route answers: the list, or the one object of a single section. */
export function sectionBody(formation: Formation, section: Section, options: SectionOptions): Item[] | Item {
  const items = sectionItems(formation, section, options);
  return section.singleName ? { name: section.singleName, fields: items } : items;
}
