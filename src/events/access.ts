import { type Kysely, type RawBuilder, sql } from 'kysely';
import { uuidv7 } from '../db/ids.ts';
import type { DB, NewRow } from '../db/schema.ts';

/**
 * The access log's records (DECISIONS "Access log"): who was shown which patients' data. Answers
 * to requests write theirs through http/access-log.ts; the other ways data leaves Cairn (a signed
 * file link used, a webhook delivery) write theirs here too. Only ids and metadata, never values.
 */

/** Who was shown the data. */
export interface AccessActor {
  /**
   * API_CLIENT or USER (a token's caller); APP (an app with a user's token: `id` and `name` are
   * the app's, `onBehalfOf` the user); LINK (whoever held a signed file link: `id` and `onBehalfOf`
   * name its issuer); WEBHOOK (a subscription's receiver: `id` is the subscription); SYSTEM (the
   * log's own upkeep).
   */
  type: 'API_CLIENT' | 'USER' | 'APP' | 'LINK' | 'WEBHOOK' | 'SYSTEM';
  id: string | null;
  name: string | null;
  /** Whose credential the actor used when not its own: a link's issuer, `USER:<id>`. */
  onBehalfOf: string | null;
}

export interface AccessEntry {
  tenantId: string;
  instanceId: string | null;
  actor: AccessActor;
  at: Date;
  clientAddress: string | null;
  /** Cairn's own id of the request (unique to it), null for work no request asked for. */
  requestId: string | null;
  /** The caller's `X-Request-Id`, when it was short and well-formed (http/request-id.ts). */
  callerRequestId?: string | null;
  /** The route (`GET /:tenantName/...`), or the work (`webhooks.deliver`). */
  operation: string;
  resourceType: string;
  patientIds: readonly string[];
  recordIds: readonly string[];
  /** The HTTP status answered: 2xx shown, 403 and 404 attempts; 0 for data sent, not asked for (a webhook). */
  outcome: number;
  /** The total the answer disclosed (a page's `totalElements`, FHIR's count): how many records matched. */
  matched?: number | null;
}

/**
 * A request's answer, recorded by the request's own statements: a write's with its audit rows
 * (work/unit.ts), a read's in the read (`shownRecord`). The record but its time, patients and
 * total, which the statement fills; the access log then records only what the answer shows beyond
 * (http/access-log.ts).
 */
export interface AnswerRecord {
  entry: Omit<AccessEntry, 'patientIds' | 'at' | 'matched'>;
  /** The patients the request's committed statements recorded. */
  readonly recorded: Set<string>;
  /** Whether a read's statement recorded the answer's total. */
  counted: boolean;
}

/** A read about to record its answer in its own statement, at this time. */
export interface ReadRecording {
  record: AnswerRecord;
  at: Date;
}

/** At most this many record ids are kept on a record: a page names its patients, not every row. */
const MAX_RECORD_IDS = 20;

/** A record as its row: ids only, the record ids bounded. */
export function accessRow(entry: AccessEntry): NewRow<'access_log'> {
  const recordIds = [...new Set(entry.recordIds)].slice(0, MAX_RECORD_IDS);
  return {
    tenant_id: entry.tenantId,
    id: uuidv7(),
    occurred_at: entry.at,
    instance_id: entry.instanceId,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id,
    actor_name: entry.actor.name,
    on_behalf_of: entry.actor.onBehalfOf,
    client_address: entry.clientAddress,
    request_id: entry.requestId,
    caller_request_id: entry.callerRequestId ?? null,
    operation: entry.operation,
    resource_type: entry.resourceType,
    patient_ids: [...new Set(entry.patientIds)],
    record_ids: recordIds.length > 0 ? recordIds : null,
    outcome: entry.outcome,
    matched: entry.matched ?? null,
  };
}

/** The columns shownRecord writes: one added to accessRow fails to compile until it writes it too. */
type ShownColumns =
  | 'tenant_id'
  | 'id'
  | 'occurred_at'
  | 'instance_id'
  | 'actor_type'
  | 'actor_id'
  | 'actor_name'
  | 'on_behalf_of'
  | 'client_address'
  | 'request_id'
  | 'caller_request_id'
  | 'operation'
  | 'resource_type'
  | 'patient_ids'
  | 'record_ids'
  | 'outcome'
  | 'matched';
const everyColumnShown: [Exclude<keyof ReturnType<typeof accessRow>, ShownColumns>] extends [never] ? true : never = true;
void everyColumnShown;

/**
 * A read's access record as a CTE of the read's own statement (`recorded AS (...)`): one round
 * trip and one commit for the answer and its record, as a write's goes in with the write. The
 * statement gives the patients it shows (`ARRAY(SELECT id FROM answer)`) and the total it
 * discloses; a row goes in only when either is not empty, as the access log's own would. The
 * caller then adds what it recorded to `recorded` (and `counted`), for the access log to skip.
 *
 * An INSERT ... SELECT, whose parameters are typed by their casts (in VALUES the columns would type
 * them, but a SELECT can leave a row out). One template for the row: built per read, it was a
 * template per column and a join (14 KB of garbage a read).
 */
export function shownRecord(
  reading: ReadRecording,
  shows: { patients: RawBuilder<unknown>; matched?: RawBuilder<unknown> },
): RawBuilder<unknown> {
  const row = accessRow({ ...reading.record.entry, at: reading.at, patientIds: [] });
  return sql`INSERT INTO access_log (tenant_id, id, occurred_at, instance_id, actor_type, actor_id, actor_name,
      on_behalf_of, client_address, request_id, caller_request_id, operation, resource_type, patient_ids,
      record_ids, outcome, matched)
    SELECT ${row.tenant_id}::uuid, ${row.id}::uuid, ${row.occurred_at}::timestamptz, ${row.instance_id}::uuid,
      ${row.actor_type}::text, ${row.actor_id}::uuid, ${row.actor_name}::text, ${row.on_behalf_of}::text,
      ${row.client_address}::text, ${row.request_id}::text, ${row.caller_request_id}::text, ${row.operation}::text,
      ${row.resource_type}::text, shown.patient_ids, ${row.record_ids}::text[], ${row.outcome}::smallint, shown.matched
    FROM (SELECT ARRAY(SELECT DISTINCT patient FROM unnest(${shows.patients}::uuid[]) AS patient WHERE patient IS NOT NULL) AS patient_ids,
      ${shows.matched ?? sql`NULL`}::integer AS matched) AS shown
    WHERE cardinality(shown.patient_ids) > 0 OR shown.matched > 0`;
}

/** One statement for records of one tenant; their `patient_ids` are indexed (GIN) for "who saw patient P". */
export async function writeAccess(db: Kysely<DB>, entries: AccessEntry | readonly AccessEntry[]): Promise<void> {
  const rows = (Array.isArray(entries) ? entries : [entries]).map(accessRow);
  if (rows.length === 0) return;
  await db.insertInto('access_log').values(rows).execute();
}

/** A batch's bounds: within PostgreSQL's 65,535 parameters, and a statement of reasonable size. */
const BATCH_RECORDS = 200;
const BATCH_PATIENTS = 10_000;
/**
 * How long a record waits at most for its siblings (answers of the same tenant already in flight on
 * this node) to join its statement, as PostgreSQL's commit_delay waits for commit_siblings. It
 * stops waiting as soon as they have all written; a record with no sibling in flight is written at
 * once, so an idle node or a client asking one thing at a time never waits.
 */
export const GROUP_WAIT_MS = 5;

interface Waiting {
  entries: AccessEntry[];
  patients: number;
  done: { resolve: () => void; reject: (error: unknown) => void }[];
}

/** A tenant's records on their way: the batches waiting, and whether a write is in flight or lingering. */
interface Lane {
  batches: Waiting[];
  /** Answers in flight that may write a record (`expect`), not yet written. */
  siblings: Set<symbol>;
  busy: boolean;
  /** The siblings a lingering write waits for: those in flight when it began, not later ones. */
  awaited?: { siblings: Set<symbol>; wake: () => void };
}

/**
 * Answers' records, written together (group commit). Each answer waits for its own record's
 * commit, so none is sent without its record, but concurrent answers share one statement and one
 * commit instead of one each: records that come while a write is in flight go together in the
 * next, and when other answers of the tenant are in flight (`expect`), the first record waits for
 * those up to GROUP_WAIT_MS. One statement per tenant (on Citus, one shard).
 */
export class AccessWriter {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly db: Kysely<DB>) {}

  private lane(tenantId: string): Lane {
    let lane = this.lanes.get(tenantId);
    if (!lane) {
      lane = { batches: [], siblings: new Set(), busy: false };
      this.lanes.set(tenantId, lane);
    }
    return lane;
  }

  /**
   * An answer that may write a record has begun: a record written meanwhile waits for it (briefly).
   * The returned release is called once it has written or will not (idempotent).
   */
  expect(tenantId: string): () => void {
    const lane = this.lane(tenantId);
    const sibling = Symbol();
    lane.siblings.add(sibling);
    return () => {
      if (!lane.siblings.delete(sibling)) return;
      const awaited = lane.awaited;
      if (awaited?.siblings.delete(sibling) && awaited.siblings.size === 0) awaited.wake();
      this.forget(tenantId, lane);
    };
  }

  /** Answers in flight and tenants with records on their way: 0 when the node is idle. */
  get inFlight(): number {
    return this.lanes.size;
  }

  write(entry: AccessEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      const lane = this.lane(entry.tenantId);
      let batch = lane.batches.at(-1);
      const patients = entry.patientIds.length;
      if (!batch || batch.entries.length >= BATCH_RECORDS || batch.patients + patients > BATCH_PATIENTS) {
        batch = { entries: [], patients: 0, done: [] };
        lane.batches.push(batch);
      }
      batch.entries.push(entry);
      batch.patients += patients;
      batch.done.push({ resolve, reject });
      if (!lane.busy) void this.drain(entry.tenantId, lane);
    });
  }

  private async drain(tenantId: string, lane: Lane): Promise<void> {
    lane.busy = true;
    try {
      if (lane.siblings.size > 0) await this.linger(lane);
      for (let batch = lane.batches.shift(); batch; batch = lane.batches.shift()) {
        try {
          await writeAccess(this.db, batch.entries);
          for (const waiter of batch.done) waiter.resolve();
        } catch (error) {
          for (const waiter of batch.done) waiter.reject(error);
        }
      }
    } finally {
      lane.busy = false;
      this.forget(tenantId, lane);
    }
  }

  private linger(lane: Lane): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        lane.awaited = undefined;
        resolve();
      };
      const timer = setTimeout(wake, GROUP_WAIT_MS);
      lane.awaited = { siblings: new Set(lane.siblings), wake };
    });
  }

  /** A tenant with nothing in flight holds no memory. */
  private forget(tenantId: string, lane: Lane): void {
    if (!lane.busy && lane.siblings.size === 0 && lane.batches.length === 0) this.lanes.delete(tenantId);
  }
}
