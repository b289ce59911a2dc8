import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the access log's area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const accessLogPermissions = {
  ACCESS_LOG_READ: "Read the access log: who saw which patient's data, and when",
  ACCESS_LOG_EXPORT: 'Export the access log (GET /export/ACCESS_LOG): its records of the instance, oldest first',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof accessLogPermissions> {}
}

/**
 * The seals of the chain, published as they are made (chain.ts): an integrator subscribed to
 * ACCESS_LOG_SEALED keeps the newest hash outside Cairn's database, which `cairn access-log verify
 * --hash` checks the chain against. Ids and hashes only.
 */
export const accessLogEvents = {
  ACCESS_LOG: {
    description:
      "A tenant's access log: each new seal of its hash chain (`details`: seq, hash, previousHash, records, kind RECORDS or RETENTION)",
    subtypes: ['ACCESS_LOG_SEALED'],
  },
} as const satisfies EventCatalog;

declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof accessLogEvents> {}
}
