import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccessActor } from '../events/access.ts';
import type { Caller } from '../tenancy/access.ts';
import { failureAnswer } from '../wire/errors.ts';
import { REPLAYED_HEADER } from './idempotency.ts';
import type { AnswerShows } from './idempotency-store.ts';
import { matchesOf } from './pagination.ts';
import { callerRequestId } from './request-id.ts';
import type { Services } from './services.ts';

/**
 * The access log: every answer that discloses patient data writes who saw which patients, when,
 * from where and through which operation, before the answer leaves (HIPAA's audit controls, 45
 * CFR 164.312(b)); a refusal (403, 404) on a patient's record is written too, as an attempt. A
 * route says what its answers disclose beside its permission, `needs('PATIENT_READ', { discloses:
 * thePatient('PATIENT') })`, and this hook does the rest: no route writes its own record. One
 * statement per answer, whatever the number of patients on the page; no field values, only ids.
 * The record is of the answer actually sent, whichever way it goes out: a kept answer replayed
 * under Idempotency-Key, a page whose total alone tells who matches, the answer to a write (whose
 * record the write itself carries, work/unit.ts: this hook records what the answer shows beyond).
 */

/** What a route's answers disclose. */
export interface Disclosure {
  /** The kind of record the answer carries: PATIENT, ENCOUNTER, CHAT_MESSAGE, FILE, ... */
  resource: string;
  /** The patients an answer is about: from the request (its path) and, for a 2xx, its body. */
  patients(request: FastifyRequest, body: unknown): string[];
  /** The records it shows, when they are few (read by id): their ids. */
  records?(request: FastifyRequest, body: unknown): string[];
}

/** A route whose answers carry no patient data although it looks as if they might, with why. */
export interface NoDisclosure {
  none: string;
}

/** Path parameters that name the scope, not a record. */
const SCOPE_PARAMS = new Set(['tenantName', 'instanceName', 'patientId']);

const params = (request: FastifyRequest) => request.params as Record<string, string | undefined>;

/** The record ids in a route's path beyond the patient (`:encounterId`, `:summaryId`). */
function pathRecords(request: FastifyRequest): string[] {
  return Object.entries(params(request))
    .filter(([name]) => !SCOPE_PARAMS.has(name) && name.endsWith('Id'))
    .map(([, value]) => value)
    .filter(isId);
}

/**
 * The answer is about the patient of the path (`/patients/:patientId/...`), and the records its path
 * names. Where the path may name the patient by another key (an MRN), `bodyField` is the answer's
 * field holding the patient's id.
 */
export function thePatient(resource: string, bodyField?: string): Disclosure {
  return {
    resource,
    patients: (request, body) => {
      const fromBody = bodyField ? (body as Record<string, unknown> | undefined)?.[bodyField] : undefined;
      return [params(request).patientId, typeof fromBody === 'string' ? fromBody : undefined].filter(isId);
    },
    records: pathRecords,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Only ids are written: a path may hold an MRN or an external id, which are the patient's data. */
function isId(value: string | undefined): value is string {
  return value !== undefined && UUID.test(value);
}

/** The value at a dotted path (`patient.id`) of an answer's object. */
function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((item, key) => (item as Record<string, unknown> | undefined)?.[key], value);
}

/**
 * The answer lists records, each naming its patient: `eachPatient('PATIENT', 'content', 'id')` for
 * a page `{ content: [{ id }] }`, `eachPatient('INVOICE', 'content', 'patient.id')`; an empty list
 * key for a bare array.
 */
export function eachPatient(resource: string, list: string, patientField: string): Disclosure {
  return {
    resource,
    patients: (_request, body) => {
      const items = list ? at(body, list) : body;
      if (!Array.isArray(items)) return [];
      return items.map((item) => at(item, patientField)).filter((id): id is string => typeof id === 'string' && isId(id));
    },
  };
}

/** The answer is one record naming its patient at `patientField` (`patient.id`); the path names the record. */
export function itsPatient(resource: string, patientField: string): Disclosure {
  return {
    resource,
    patients: (_request, body) => {
      const id = at(body, patientField);
      return typeof id === 'string' && isId(id) ? [id] : [];
    },
    records: pathRecords,
  };
}

/** The answer's patients as its area finds them in the body (calendar events name theirs among participants). */
export function patientsIn(resource: string, find: (body: unknown) => unknown[]): Disclosure {
  return {
    resource,
    patients: (_request, body) =>
      (body === undefined ? [] : find(body)).filter((id): id is string => typeof id === 'string' && isId(id)),
    records: pathRecords,
  };
}

/**
 * The handler names the patients (`disclose(request, ids)`), where the answer's body does not show
 * them: a file's bytes, an export page whose items hold their patient in a column the view leaves out.
 */
export function named(resource: string): Disclosure {
  return {
    resource,
    patients: (request) => request.disclosing?.patients ?? [],
    records: (request) => request.disclosing?.records ?? [],
  };
}

/** What a handler of a `named` route shows: written with its answer. */
export function disclose(request: FastifyRequest, patients: readonly unknown[], records: readonly string[] = []): void {
  request.disclosing = {
    patients: patients.filter((id): id is string => typeof id === 'string' && isId(id)),
    records: [...records],
  };
}

/**
 * Who asked, known before the permission check (so a refusal is written with its caller): the
 * access hook sets it from the token; a route open without one sets its own (a signed link's issuer).
 */
export interface AccessAttempt {
  actor: AccessActor;
  tenantId: string;
  instanceId: string | null;
}

/** A token's caller as the log names it: an app's token names the app, acting for its user. */
export function callerActor(caller: Caller): AccessActor {
  if (caller.app) return { type: 'APP', id: caller.app.id, name: caller.app.name, onBehalfOf: `${caller.type}:${caller.id}` };
  return { type: caller.type, id: caller.id, name: caller.name, onBehalfOf: null };
}

declare module 'fastify' {
  interface FastifyRequest {
    accessAttempt: AccessAttempt | null;
    /** Whether this answer's record is written or being written (or it was found to name no patient). */
    accessWritten: boolean;
    /** The record of a 2xx answer, written while the answer is serialized. */
    accessWriting: Promise<void> | null;
    /**
     * A 2xx answer whose record waits for onSend, because Idempotency-Key may yet send a kept
     * answer in its place (a request that wrote nothing under a key another request holds).
     */
    accessDeferred: { answer: unknown } | null;
    /** What a `named` route's handler says it shows. */
    disclosing: { patients: string[]; records: string[] } | null;
    /** Ends this answer's place among the records its tenant's next statement waits for. */
    accessExpected: (() => void) | null;
  }
}

/** The signal a written record sends: the access log's sealing runs on it (a job kind's `wakeOn`). */
export const ACCESS_SIGNAL = 'access-log';

/** Refusals written as attempts: on a patient's record, not found and not allowed. */
const ATTEMPTS = new Set([403, 404]);

/** The total an answer shows: a page object's `totalElements`, data and meta's, a FHIR Bundle's `total`. */
function totalOf(answer: unknown): number | null {
  if (!answer || typeof answer !== 'object') return null;
  const body = answer as { totalElements?: unknown; metaInfo?: { totalElements?: unknown }; total?: unknown };
  const total = body.totalElements ?? body.metaInfo?.totalElements ?? body.total;
  return typeof total === 'number' ? total : null;
}

/** A kept answer's body, sent again (a replay): its JSON, to read its patients as the first answer's were. */
function parsedAnswer(payload: unknown): unknown {
  const text = Buffer.isBuffer(payload) ? payload.toString('utf8') : typeof payload === 'string' ? payload : undefined;
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function registerAccessLog(app: FastifyInstance, services: Services): void {
  app.decorateRequest('accessAttempt', null);
  app.decorateRequest('accessWritten', false);
  app.decorateRequest('accessWriting', null);
  app.decorateRequest('accessDeferred', null);
  app.decorateRequest('disclosing', null);
  app.decorateRequest('accessExpected', null);

  // Known to write (caller known, route discloses): records written meanwhile may wait for this one.
  // A write's answer is recorded with the write itself, naming the patients it changed (work/unit.ts);
  // a read that opts in records its answer in its own statement (events/access.ts shownRecord).
  app.addHook('preHandler', async (request) => {
    const disclosure = disclosureOf(request);
    const attempt = request.accessAttempt;
    if (!attempt || !disclosure) return;
    request.accessExpected = services.accessLog.expect(attempt.tenantId);
    const write = writeAnswerOf(request);
    if (request.context && !write.empty) {
      const entry = { ...entryOf(request, attempt, disclosure, write.status), recordIds: pathRecords(request) };
      request.context = { ...request.context, disclosure: { entry, recorded: new Set(), counted: false } };
    }
  });
  const release = async (request: FastifyRequest) => request.accessExpected?.();
  app.addHook('onResponse', release);
  app.addHook('onRequestAbort', release);

  /**
   * Writes the record of the answer sent: its patients, and those its total discloses. None when it
   * names no patient and its total is nought (an empty page of no matches disclosed nothing).
   */
  async function record(request: FastifyRequest, status: number, disclosure: Disclosure, body: unknown, replayed = false) {
    request.accessWritten = true;
    // This answer no longer holds up others' records: from here it writes its own, or none.
    request.accessExpected?.();
    const attempt = request.accessAttempt;
    if (!attempt) return;
    const shown = status < 300;
    // The request's own statements recorded the patients they changed or read, and a read its total:
    // the rest of what the answer shows here (a replay's total is the kept answer's, not the read's).
    const own = shown ? request.context?.disclosure : undefined;
    const matched = shown && !(own?.counted && !replayed) ? totalOf(body) : null;
    // A replay's are the kept answer's, as its first sending named them.
    const shows = (shown && request.answerShows) || showsOf(request, disclosure, body, shown);
    const patients = shows.patients.filter((id) => !own?.recorded.has(id));
    if (patients.length === 0 && !matched) {
      // Its record went in with its statements: the node seals it as it would its own.
      if (own && (own.counted || own.recorded.size > 0)) services.jobs.signal(ACCESS_SIGNAL);
      return;
    }
    await services.accessLog.write({
      ...entryOf(request, attempt, disclosure, status),
      at: services.clock.now(),
      patientIds: patients,
      recordIds: shows.records,
      matched,
    });
    // The node that wrote records seals them once they have settled (modules/access-log/jobs.ts).
    services.jobs.signal(ACCESS_SIGNAL);
  }

  // A 2xx answer's object, read before it is serialized: its record is written while the answer
  // is serialized (a page can be megabytes), and the answer waits for it just before it is sent.
  app.addHook('preSerialization', async (request, reply, payload) => {
    const disclosure = disclosureOf(request);
    if (!disclosure || reply.statusCode >= 300) return payload;
    // Kept with the answer if Idempotency-Key keeps it, for its replays' records.
    request.answerShows = showsOf(request, disclosure, payload, true);
    // A request that wrote nothing under a key may yet be answered with the key's kept answer.
    if (request.idempotency && !request.idempotency.written) {
      request.accessDeferred = { answer: payload };
      return payload;
    }
    const written = record(request, reply.statusCode, disclosure, payload);
    // Awaited in onSend; until then a failure must not count as unhandled.
    written.catch(() => {});
    request.accessWriting = written;
    return payload;
  });

  // Registered after Idempotency-Key's onSend, so it sees the answer actually sent: a replay's
  // kept answer is recorded as it is sent again. Also refusals on a patient's record (403, 404),
  // and 2xx answers that are not an object (a file's bytes), which name what their request does.
  app.addHook('onSend', async (request, reply, payload) => {
    const disclosure = disclosureOf(request);
    request.accessExpected?.();
    try {
      if (request.accessWriting) {
        // The serialized answer becomes bytes before it waits: as text it is a rope of many pieces,
        // which the wait would hold through collections (promoted, then flattened when sent).
        const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
        // None is sent before its record has committed; a record that failed fails the answer.
        await request.accessWriting;
        return body;
      }
      if (!disclosure || request.accessWritten) return payload;
      const status = reply.statusCode;
      if (reply.getHeader(REPLAYED_HEADER) === 'true') {
        if (status < 300 ? !emptyWrite(request, payload) : ATTEMPTS.has(status))
          await record(request, status, disclosure, parsedAnswer(payload), true);
      } else if (request.accessDeferred) {
        await record(request, status, disclosure, request.accessDeferred.answer);
      } else if (status < 300 ? !emptyWrite(request, payload) : ATTEMPTS.has(status)) {
        await record(request, status, disclosure, undefined);
      }
      return payload;
    } catch (error) {
      // No data without its record: the answer becomes the error, which says nothing of the database.
      return failureAnswer(error, request, reply);
    }
  });
}

/**
 * The patients and records an answer shows: its disclosure's (from the path, and for a 2xx its
 * body) and, for a 2xx page, the matches its total stands for.
 */
function showsOf(request: FastifyRequest, disclosure: Disclosure, body: unknown, shown: boolean): AnswerShows {
  const answer = shown ? body : undefined;
  return {
    patients: [...disclosure.patients(request, answer), ...((shown && matchesOf(body)) || [])].filter(isId),
    records: [...pathRecords(request), ...(shown ? (disclosure.records?.(request, body) ?? []) : [])].filter(isId),
  };
}

/** An answer's record, but its time, patients and records: who asked, from where, through which route. */
function entryOf(request: FastifyRequest, attempt: AccessAttempt, disclosure: Disclosure, status: number) {
  return {
    tenantId: attempt.tenantId,
    instanceId: attempt.instanceId,
    actor: attempt.actor,
    clientAddress: request.ip ?? null,
    requestId: request.id,
    callerRequestId: callerRequestId(request),
    operation: `${request.method} ${request.routeOptions.url ?? ''}`,
    resourceType: disclosure.resource,
    outcome: status,
  };
}

/**
 * What a route's documented answers say, worked out once per route: its success status (its one
 * documented 2xx, 201 for a create, else 200) and whether that answer is empty (EmptyBody: it shows
 * nothing, so its write carries no record either; the change itself is in the audit log). Per
 * request, reading the responses' keys made a sixteenth of a read's garbage.
 */
interface WriteAnswer {
  status: number;
  empty: boolean;
}

const writeAnswers = new WeakMap<object, WriteAnswer>();

function writeAnswerOf(request: FastifyRequest): WriteAnswer {
  const { config, schema } = request.routeOptions;
  let answer = writeAnswers.get(config);
  if (!answer) {
    const responses = (schema?.response ?? {}) as Record<string, { type?: unknown } | undefined>;
    const successes = Object.keys(responses)
      .map(Number)
      .filter((status) => status >= 200 && status < 300);
    const status = successes.length === 1 ? successes[0]! : 200;
    answer = { status, empty: responses[String(status)]?.type === 'null' };
    writeAnswers.set(config, answer);
  }
  return answer;
}

/** A write answered with nothing (a delete's 200 with no body, or its replay) showed nothing. */
function emptyWrite(request: FastifyRequest, payload: unknown): boolean {
  const empty = payload == null || payload === '' || (Buffer.isBuffer(payload) && payload.length === 0);
  return request.method !== 'GET' && empty;
}

function disclosureOf(request: FastifyRequest): Disclosure | undefined {
  const discloses = request.routeOptions.config.access?.discloses;
  return discloses && 'resource' in discloses ? discloses : undefined;
}
