import { supportedTimezones } from './patient-fields.ts';
import type { DictionaryDefinition } from './schemas.ts';

/**
 * 001: the dictionaries every instance has. `timezone` cannot be changed or populated (its values
 * are the supported timezones); `cpt` and `icd-10` keep their structure, and values can be added.
 */
export const defaultDictionaries: DictionaryDefinition[] = [
  { name: 'timezone', title: 'Timezone', internal: false, fields: [{ name: 'value', type: 'TEXT', required: true }] },
  {
    name: 'cpt',
    title: 'CPT codes',
    internal: false,
    fields: [
      { name: 'code', type: 'TEXT', required: true },
      { name: 'description', type: 'TEXT' },
    ],
  },
  {
    name: 'icd-10',
    title: 'ICD-10 codes',
    internal: false,
    fields: [
      { name: 'code', type: 'TEXT', required: true },
      { name: 'description', type: 'TEXT' },
    ],
  },
];

export const defaultDictionaryNames = new Set(defaultDictionaries.map((dictionary) => dictionary.name));

/** Dictionaries whose values cannot be written at all. */
export const readOnlyDictionaries = new Set(['timezone']);

/** The fixed values of `timezone`. */
export const timezoneValues = supportedTimezones.map((value) => ({ value }));
