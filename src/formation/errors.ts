import type { NamesOf } from '../wire/errors.ts';

/** The formation model's error codes (DECISIONS §6). */
export const formationErrors = {
  FORMATION_INVALID: { status: 400, componentType: 'FORMATION', message: 'The formation is not valid' },
  FORMATION_NOT_FOUND: { status: 404, componentType: 'FORMATION', message: 'Formation version not found' },
} as const;

declare module '../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof formationErrors> {}
}
