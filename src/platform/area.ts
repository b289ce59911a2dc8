import type { SettingsSection } from '../config.ts';
import { type AuditActionCatalog, registerAuditActions } from '../events/audit.ts';
import { type EventCatalog, entityOf, forgetPatientEvents, registerEvents } from '../events/outbox.ts';
import type { PatientData } from '../events/work.ts';
import { REMOVE_BLOB } from '../files/blob-store.ts';
import { fileErrors } from '../files/catalog.ts';
import { removeBlob } from '../files/files.ts';
import type { FileOwner } from '../files/owners.ts';
import { fileStoreSettings } from '../files/settings.ts';
import { deleteFilesOfPatient } from '../files/store.ts';
import { formationErrors } from '../formation/errors.ts';
import { type PermissionCatalog, registerPermissions } from '../formation/permissions.ts';
import { platformSections } from '../formation/platform.ts';
import { type FormationSection, FormationShape } from '../formation/sections.ts';
import type { ExportSource } from '../http/export.ts';
import type { FhirResource } from '../http/fhir.ts';
import { idempotencyErrors } from '../http/idempotency.ts';
import { forgetAnswersNaming, removeExpiredKeys } from '../http/idempotency-store.ts';
import type { AreaPlugin } from '../http/plugin.ts';
import type { Declared, OpaqueTokens, Services } from '../http/services.ts';
import type { JobKind } from '../jobs/kinds.ts';
import { forgetJobsNaming } from '../jobs/queue.ts';
import { jobSettings } from '../jobs/settings.ts';
import { providerErrors } from '../providers/catalog.ts';
import type { ChannelHandlers, ChannelName } from '../providers/channels.ts';
import { providerSettings } from '../providers/settings.ts';
import type { Channel } from '../providers/slot.ts';
import { recordAuditActions, recordErrors, recordEvents } from '../records/catalog.ts';
import { coreErrors, type ErrorCatalog, registerErrors } from '../wire/errors.ts';

/**
 * An area of the API (a folder under src/modules), as the app takes it: its routes, and all it
 * adds to the platform, declared beside them. A new area is one more entry in src/areas.ts (and
 * a migration for its tables); it edits no central file.
 */
export interface Area {
  name: string;
  routes?: AreaPlugin;
  /** The permissions its routes need, with what each grants. */
  permissions?: PermissionCatalog;
  /** The error codes it answers with, beyond the shared ones. */
  errors?: ErrorCatalog;
  /** The audit actions it writes, each with what it records and the events it writes. */
  auditActions?: AuditActionCatalog;
  /** The event entities its records are, with their subtypes (DECISIONS §9). */
  events?: EventCatalog;
  /** Its background work, by kind name (`<area>.<what>`). */
  jobs?: Record<string, JobKind<Services>>;
  /** Its section of the configuration (environment variables). */
  settings?: SettingsSection;
  /** What its files belong to (an owner kind, `DOCUMENT_SUMMARY`), with the permission reading them needs and the upload rules. */
  files?: Record<string, FileOwner>;
  /** Its sections of the formation: schema, read route, checks at publish, work on publish. */
  formation?: FormationSection[];
  /** The outside services it reaches (src/providers/<channel>/): their settings join the configuration. */
  providers?: Channel[];
  /** The channels it owns (EMAIL): what it does with the messages providers hand over and the outcomes they report. */
  channels?: Partial<Record<ChannelName, ChannelHandlers<Services>>>;
  /**
   * Its tables holding patients' rows or naming patients otherwise, what the patient's delete and
   * purge do with them (and keep), and the free text a purge clears in its records that stay.
   */
  patientData?: PatientData;
  /** What it offers the bulk export, by resource name (PATIENT): served at /export/{resourceName}. */
  exports?: Record<string, ExportSource>;
  /** The FHIR R4 resources its records are (Patient): served read-only at /fhir/R4/{type}. */
  fhir?: FhirResource[];
  /** The opaque access tokens it issues (an app's), resolved by the access hook in the instance a request names; one area at most. */
  opaqueTokens?: OpaqueTokens;
  /**
   * Where its route-check fixtures are (its `fixtures.ts`: the records it seeds in a test tenant and
   * the path parameters they fill). Test code: the app never loads it.
   */
  fixtures?: URL;
}

export interface Catalogs {
  permissions: PermissionCatalog;
  errors: ErrorCatalog;
  auditActions: AuditActionCatalog;
  events: EventCatalog;
}

/** What the areas declared for the platform's mechanisms, merged; the app hands it to the services. */
export interface Declarations extends Declared {
  jobKinds: Map<string, JobKind<Services>>;
  fileOwners: Map<string, FileOwner>;
  channels: Map<ChannelName, ChannelHandlers<Services>>;
  exports: Map<string, ExportSource>;
  /** By type: several areas may serve one, each from its own table (Communication: chat, SMS, email). */
  fhir: Map<string, FhirResource[]>;
  slots: Channel[];
  patientData: PatientData[];
  settings: SettingsSection[];
}

export interface Merged {
  catalogs: Catalogs;
  declarations: Declarations;
}

/**
 * The shared mechanisms' own declarations: the wire format's, the formation model's, the records
 * kernel's, the files mechanism's and the job queue's.
 */
export const platform: Area = {
  name: 'platform',
  errors: { ...coreErrors, ...formationErrors, ...recordErrors, ...fileErrors, ...providerErrors, ...idempotencyErrors },
  auditActions: recordAuditActions,
  events: recordEvents,
  patientData: {
    tables: ['files', 'events'],
    mentions: {
      jobs: { by: 'payload or queue_key (the id)' },
      idempotency_keys: { by: 'response_body (the id, a phone or email)' },
    },
    // A patient's files go with the patient; their blobs by the jobs the delete queues.
    remove: (w, scope, patientId) => deleteFilesOfPatient(w, scope, patientId),
    // A purge also takes what the mechanisms hold of them: events not yet relayed, jobs naming
    // them, and kept answers to repeat (docs/patient-purge.md).
    purge: async (w, scope, patient) => {
      await deleteFilesOfPatient(w, scope, patient.id);
      await forgetPatientEvents(w.db, scope.tenantId, patient.id);
      await forgetJobsNaming(w.db, scope.tenantId, patient.id, [REMOVE_BLOB], w.now);
      await forgetAnswersNaming(w.db, scope.tenantId, [patient.id, ...patient.addresses]);
    },
  },
  jobs: {
    [REMOVE_BLOB]: {
      description: "Removes a deleted file's blob from the store (queued by the write that deleted its row)",
      run: (job, services) => removeBlob(services, job.payload),
      // A store that is down for a while: retried for about a day before an administrator must look.
      maxAttempts: 12,
      backoff: { baseMs: 30_000, maxMs: 4 * 60 * 60_000 },
    },
    'idempotency.expire': {
      description: 'Removes Idempotency-Keys (and their kept answers) a day after their first request',
      run: (_job, services) => removeExpiredKeys(services.db, services.clock.now()),
      maxAttempts: 1,
      // A key lives 24 hours: removing it up to 10 minutes late changes nothing a client sees,
      // since an expired key is taken over as new by its next request anyway.
      everyMs: 10 * 60_000,
    },
  },
};

/** The platform's settings sections beyond its own (config.ts), which mechanisms declare. */
const platformSettings = [fileStoreSettings, jobSettings, providerSettings];

/** Every settings section of the platform and of the areas given (their channels' too), for loadConfig and the README. */
export function settingsSections(areas: readonly Area[]): SettingsSection[] {
  return [
    ...platformSettings,
    ...areas.flatMap((area) => [
      ...(area.settings ? [area.settings] : []),
      ...(area.providers ?? []).map((slot) => slot.settings),
    ]),
  ];
}

/**
 * Merges the areas' declarations into one of each kind, refusing a name two areas declare, and
 * makes the catalogs known at run time (permission names in formations, error codes, audit
 * actions, event subtypes). Safe to call again with the same areas (each test file builds its own
 * app).
 */
export function mergeAreas(areas: readonly Area[]): Merged {
  const catalogs: Catalogs = { permissions: {}, errors: {}, auditActions: {}, events: {} };
  const declarations: Declarations = {
    jobKinds: new Map(),
    fileOwners: new Map(),
    channels: new Map(),
    exports: new Map(),
    fhir: new Map(),
    slots: areas.flatMap((area) => area.providers ?? []),
    patientData: [],
    // Two areas declaring one section or one route name stop the app here.
    formation: new FormationShape([...platformSections, ...areas.flatMap((area) => area.formation ?? [])]),
    settings: settingsSections(areas),
  };
  const owners = new Map<string, string>();
  const claim = (kind: string, name: string, area: Area) => {
    const owner = owners.get(`${kind}/${name}`);
    if (owner) throw new Error(`${kind} ${name} is declared by both ${owner} and ${area.name}`);
    owners.set(`${kind}/${name}`, area.name);
  };
  for (const area of [platform, ...areas]) {
    for (const kind of ['permissions', 'errors', 'auditActions', 'events'] as const) {
      for (const [name, entry] of Object.entries(area[kind] ?? {})) {
        claim(kind, name, area);
        (catalogs[kind] as Record<string, unknown>)[name] = entry;
      }
    }
    for (const [name, kind] of Object.entries(area.jobs ?? {})) {
      claim('job kind', name, area);
      declarations.jobKinds.set(name, kind);
    }
    for (const [name, owner] of Object.entries(area.files ?? {})) {
      claim('file owner', name, area);
      declarations.fileOwners.set(name, owner);
    }
    for (const [name, source] of Object.entries(area.exports ?? {})) {
      claim('export', name, area);
      declarations.exports.set(name, source);
    }
    for (const resource of area.fhir ?? []) {
      claim('FHIR resource', `${resource.type} from ${resource.table}`, area);
      declarations.fhir.set(resource.type, [...(declarations.fhir.get(resource.type) ?? []), resource]);
    }
    if (area.opaqueTokens) {
      claim('opaque tokens', 'issuer', area);
      declarations.opaqueTokens = area.opaqueTokens;
    }
    if (area.patientData) {
      // One owner per table: the coverage test then says which area forgot one.
      for (const table of area.patientData.tables) claim('patient table', table, area);
      for (const table of Object.keys(area.patientData.mentions ?? {})) claim('patient mention', table, area);
      for (const texts of area.patientData.texts ?? []) claim("patient records' texts", texts.table, area);
      declarations.patientData.push(area.patientData);
    }
    for (const [name, handlers] of Object.entries(area.channels ?? {})) {
      claim('channel', name, area);
      if (!declarations.slots.includes(handlers.slot))
        throw new Error(`channel ${name} of ${area.name}: its slot is on no Area's providers`);
      declarations.channels.set(name as ChannelName, handlers);
    }
  }
  // A record that outlives a purge while naming the patient has its free text cleared by someone.
  const cleared = new Set(declarations.patientData.flatMap((data) => (data.texts ?? []).map((texts) => texts.table)));
  for (const data of declarations.patientData) {
    for (const [table, mention] of Object.entries(data.mentions ?? {})) {
      if (mention.record && !cleared.has(mention.record))
        throw new Error(`patient mention ${table}: its record ${mention.record} outlives a purge, and no area's texts clear it`);
    }
  }
  registerPermissions(catalogs.permissions);
  registerErrors(catalogs.errors);
  registerEvents(catalogs.events);
  registerAuditActions(catalogs.auditActions);
  // A job kind follows declared events only: a typo would otherwise never enqueue it.
  for (const [name, kind] of declarations.jobKinds) {
    for (const subtype of kind.after ?? []) {
      try {
        entityOf(subtype);
      } catch {
        throw new Error(`job kind ${name} follows event ${subtype}, which no area declares`);
      }
    }
  }
  // An action's events must be declared: a typo would otherwise fail the first write that uses it.
  for (const [action, entry] of Object.entries(catalogs.auditActions)) {
    for (const subtype of entry.events) {
      try {
        entityOf(subtype);
      } catch {
        throw new Error(`audit action ${action} writes event ${subtype}, which no area declares`);
      }
    }
  }
  return { catalogs, declarations };
}
