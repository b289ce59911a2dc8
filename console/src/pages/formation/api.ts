import { CairnError, unwrap } from '@cairn/client';
import type { Session } from '../../session.ts';

/** A formation document as the console handles it: JSON, shown and edited as text. */
export type FormationDocument = Record<string, unknown>;

export interface VersionInfo {
  /** -1 is the draft. */
  version: number;
  status: 'DRAFT' | 'PUBLISHED' | 'CURRENT';
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  publishedByName: string | null;
}

export interface FormationVersion extends VersionInfo {
  formation: FormationDocument;
}

/** A published version's number, or `draft`. */
export type VersionKey = number | 'draft';

export const isNotFound = (error: unknown) => error instanceof CairnError && error.errorCode === 'FORMATION_NOT_FOUND';

/** One version (a number, `current` or `draft`); undefined when there is none (404 FORMATION_NOT_FOUND). */
export async function loadVersion(session: Session, version: VersionKey | 'current'): Promise<FormationVersion | undefined> {
  const { client, tenantName, instanceName } = session;
  try {
    const body = await unwrap(
      client.GET('/{tenantName}/{instanceName}/formations/{version}', {
        params: { path: { tenantName, instanceName, version: String(version) } },
      }),
    );
    return body as FormationVersion;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Every version of the instance, the draft (-1) among them, newest first. */
export async function loadVersions(session: Session): Promise<VersionInfo[]> {
  const { client, tenantName, instanceName } = session;
  return (await unwrap(
    client.GET('/{tenantName}/{instanceName}/export/formation_version', { params: { path: { tenantName, instanceName } } }),
  )) as VersionInfo[];
}

/** Replaces the draft (PUT); the API answers the draft as kept (unknown keys inside items dropped). */
export async function saveDraft(session: Session, document: FormationDocument): Promise<FormationVersion> {
  const { client, tenantName, instanceName } = session;
  return (await unwrap(
    client.PUT('/{tenantName}/{instanceName}/formations/draft', {
      params: { path: { tenantName, instanceName } },
      body: document as never,
    }),
  )) as FormationVersion;
}

/** Publishes the draft as the next version, which becomes current. */
export async function publishDraft(session: Session): Promise<FormationVersion> {
  const { client, tenantName, instanceName } = session;
  return (await unwrap(
    client.POST('/{tenantName}/{instanceName}/formations/draft/publish', { params: { path: { tenantName, instanceName } } }),
  )) as FormationVersion;
}

export interface Problem {
  path: string;
  message: string;
}

/** The problems of a refused publish (400 FORMATION_INVALID, `details.errors`), or none for any other error. */
export function publishProblems(error: unknown): Problem[] {
  if (!(error instanceof CairnError) || error.errorCode !== 'FORMATION_INVALID') return [];
  const errors = (error.details.errors ?? []) as Partial<Problem>[];
  return errors.map((entry) => ({ path: entry.path ?? '', message: entry.message ?? 'is not valid' }));
}

/**
 * Whether a problem is the lock-out guard's (src/modules/formation/lock-out.ts): the publisher losing
 * FORMATION_WRITE, or a role or policy still granted to someone active that the draft no longer defines.
 */
export const isLockOut = (problem: Problem) =>
  /FORMATION_WRITE/.test(problem.message) || /is granted to .* but the formation does not define it/.test(problem.message);

/** The API's validation errors of a saved draft (400 VALIDATION_ERROR), each with the path it concerns. */
export function draftProblems(error: unknown): Problem[] {
  if (!(error instanceof CairnError) || error.errorCode !== 'VALIDATION_ERROR') return [];
  const errors = (error.details.errors ?? []) as { path?: string; message?: string }[];
  return errors.map((entry) => ({
    path: (entry.path ?? '').replace(/^body\.?/, '') || '(the whole document)',
    message: entry.message ?? 'Invalid',
  }));
}

export const versionName = (version: VersionKey) => (version === 'draft' ? 'the draft' : `version ${version}`);
export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '');
