import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { uuidv7 } from '../../db/ids.ts';
import type { Work } from '../../events/work.ts';
import { linkIssue } from '../../files/links.ts';
import { type FileRow, filesOf } from '../../files/store.ts';
import type { Context } from '../../http/context.ts';
import { attachFiles } from '../../records/attachments.ts';
import { type PatientRow, requirePatient, withPatient } from '../../records/patient-scope.ts';
import { ApiError, validationError } from '../../wire/errors.ts';
import type { ChatMessageView } from './schemas.ts';
import { archivedUntil, type ChatRow, chatPage, type Direction } from './store.ts';

/**
 * A patient's chat (002 "Chat and files"): token pages newest first, search, messages from the
 * patient (inbound), archive and restore. Pages are keysets: a token holds the position and
 * everything the next request needs (size, flags, query), signed (DECISIONS §3).
 */

export const CHAT_FILES = 'CHAT_MESSAGE';
const DEFAULT_SIZE = 20;

/** What a page token carries. */
interface PageState {
  kind: 'LIST' | 'SEARCH';
  size: number;
  archived: boolean;
  direction: Direction;
  /** The position: the (createdAt, id) of the message the page reads on from. */
  at?: unknown[];
  query?: string;
  /** Search: the size of the list pages each hit's tokens open. */
  contentSize?: number;
  patientId: string;
}

function readState(ctx: Context, token: string, kind: PageState['kind'], patientId: string): PageState {
  const state = ctx.services.pageTokens.read<PageState>(token);
  // A token of another list, or another patient's, is as good as forged here.
  if (state.kind !== kind || state.patientId !== patientId || !Number.isInteger(state.size)) {
    throw new ApiError('INVALID_PAGE_TOKEN', {}, 'The page token is not one of this list');
  }
  return state;
}

const positionOf = (row: ChatRow) => [row.created_at.toISOString(), row.id];

/** The rows of a page and its two tokens: down the list (older) and up it (newer). */
async function page(ctx: Context, patient: PatientRow, state: PageState) {
  const where = { ...ctx.scope, patientId: patient.id };
  const archivedUntilDate = state.archived ? undefined : await archivedUntil(ctx.db, where);
  const selection = { archivedUntil: archivedUntilDate, text: state.query };
  const { rows, more } = await chatPage(ctx.db, where, selection, state.direction, state.at, state.size);
  const token = (direction: Direction, row: ChatRow | undefined) =>
    row ? ctx.services.pageTokens.sign({ ...state, direction, at: positionOf(row) }) : null;
  // Reading down, there is more below when the page says so, and above when it started below the top.
  const older = state.direction === 'older' ? more : rows.length > 0;
  const newer = state.direction === 'newer' ? more : state.at !== undefined && rows.length > 0;
  return {
    rows,
    next: older ? token('older', rows.at(-1)) : null,
    prev: newer ? token('newer', rows[0]) : null,
  };
}

async function views(ctx: Context, rows: ChatRow[], origin: string, patient?: PatientRow): Promise<ChatMessageView[]> {
  const files = await filesOf(
    ctx.db,
    ctx.scope,
    CHAT_FILES,
    rows.map((row) => row.id),
  );
  const now = ctx.services.clock.now();
  const linked = ctx.services.files.withLinksByOwner(files, linkIssue(origin, now, ctx.actor));
  return rows.map((row) => ({
    id: row.id,
    sender: {
      clientType: row.sender_type,
      id: row.sender_id,
      titleName: null,
      patientFullName: patient ? [patient.first_name, patient.last_name].filter(Boolean).join(' ') : null,
    },
    receiver: row.receiver_type
      ? { clientType: row.receiver_type, id: row.receiver_id, titleName: null, patientFullName: null }
      : null,
    message: row.message,
    externalId: row.external_id,
    createdAt: row.created_at,
    attachments: linked.get(row.id) ?? [],
    skipEvent: false,
    deletedAt: row.deleted_at,
  }));
}

/** PROD-SHAPES: the list writes createdAt to the second (`.000Z`); search keeps milliseconds. */
function toSecond(view: ChatMessageView): ChatMessageView {
  const at = new Date(view.createdAt);
  at.setUTCMilliseconds(0);
  return { ...view, createdAt: at };
}

/** Messages as the chat list shows them (the list and the export): one statement for the page's files. */
export async function chatListViews(ctx: Context, rows: ChatRow[], origin: string): Promise<ChatMessageView[]> {
  return (await views(ctx, rows, origin)).map(toSecond);
}

function meta(next: string | null, prev: string | null, size: number, count: number) {
  return { nextPageToken: next, prevPageToken: prev, pageSize: size, found: count > 0, isFound: count > 0 };
}

export interface ListOptions {
  size?: number | undefined;
  pageToken?: string | undefined;
  includeArchived: boolean;
}

/** GET .../chat: `size` (or `pageSize`) or `pageToken`, not both (002). */
export async function listChat(ctx: Context, patientId: string, options: ListOptions, origin: string) {
  const patient = await requirePatient(ctx, patientId);
  // 002: size and pageToken are exclusive; a token carries its own size, so it wins over one sent too.
  const state: PageState = options.pageToken
    ? readState(ctx, options.pageToken, 'LIST', patient.id)
    : {
        kind: 'LIST',
        size: options.size ?? DEFAULT_SIZE,
        archived: options.includeArchived,
        direction: 'older',
        patientId: patient.id,
      };
  const { rows, next, prev } = await page(ctx, patient, state);
  const content = await chatListViews(ctx, rows, origin);
  return { meta: meta(next, prev, state.size, content.length), content };
}

export interface SearchOptions {
  query?: string | undefined;
  pageSize?: number | undefined;
  contentPageSize?: number | undefined;
  includeArchived: boolean;
  pageToken?: string | undefined;
}

/**
 * GET .../chat/search: the messages holding `query` (any case), newest first, `pageSize` of them;
 * each hit carries the tokens of the chat list around it (`contentPageSize` messages a page), and
 * `meta` those of the next and previous hits.
 */
export async function searchChat(ctx: Context, patientId: string, options: SearchOptions, origin: string) {
  const patient = await requirePatient(ctx, patientId);
  let state: PageState;
  if (options.pageToken) {
    // The token carries the query and sizes: parameters sent beside it are ignored (002: exclusive).
    state = readState(ctx, options.pageToken, 'SEARCH', patient.id);
  } else {
    if (!options.query?.trim()) throw validationError([{ path: 'querystring.query', message: 'is required (or a pageToken)' }]);
    state = {
      kind: 'SEARCH',
      size: options.pageSize ?? DEFAULT_SIZE,
      contentSize: options.contentPageSize ?? DEFAULT_SIZE,
      archived: options.includeArchived,
      direction: 'older',
      query: options.query.trim().toLowerCase(),
      patientId: patient.id,
    };
  }
  const { rows, next, prev } = await page(ctx, patient, state);
  const hits = await views(ctx, rows, origin);
  const around = (row: ChatRow, direction: Direction) =>
    ctx.services.pageTokens.sign({
      kind: 'LIST',
      size: state.contentSize ?? DEFAULT_SIZE,
      archived: state.archived,
      direction,
      at: positionOf(row),
      patientId: patient.id,
    } satisfies PageState);
  return {
    meta: meta(next, prev, state.size, hits.length),
    content: hits.map((message, index) => ({
      meta: { nextPageToken: around(rows[index]!, 'older'), prevPageToken: around(rows[index]!, 'newer') },
      message,
    })),
  };
}

/** A message from the patient: JSON `{message}`, or multipart with `message` and `attachmentAsFiles` parts (200). */
export async function addInbound(
  ctx: Context,
  request: FastifyRequest,
  patientId: string,
  origin: string,
): Promise<ChatMessageView> {
  const patient = await requirePatient(ctx, patientId);
  const id = uuidv7();
  const insert = async (w: Work, text: string | null, files: FileRow[]) => {
    if (!text && files.length === 0) throw new ApiError('EMPTY_MESSAGE', { patientId });
    const row = await w.db
      .insertInto('chat_messages')
      .values({
        tenant_id: ctx.scope.tenantId,
        instance_id: ctx.scope.instanceId,
        id,
        patient_id: patient.id,
        sender_type: 'PATIENT',
        sender_id: patient.id,
        receiver_type: null,
        receiver_id: null,
        message: text,
        // Production's ids are Twilio's: IM and 32 hex digits.
        external_id: `IM${randomBytes(16).toString('hex')}`,
        created_at: w.now,
        created_by: w.actor.id,
        created_by_name: w.actor.name,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({ action: 'CHAT_CREATED', entityType: 'CHAT', entityId: id, patientId: patient.id, changedFields: ['message'] });
    return row;
  };
  let row: ChatRow;
  if (request.isMultipart()) {
    const keyPrefix = `${ctx.tenant.name}/${ctx.instance.name}/patients/${patient.id}/chat`;
    row = await attachFiles(
      ctx,
      request,
      { kind: CHAT_FILES, id, patientId: patient.id, keyPrefix },
      (w, files, fields) => insert(w, fields.message?.trim() || null, files),
      { field: 'attachmentAsFiles', optional: true },
    );
  } else {
    const body = request.body as { message: string; skipEvent?: boolean };
    row = await withPatient(ctx, patient.id, (w) => insert(w, body.message, []), { skipEvent: body.skipEvent === true });
  }
  const [view] = await views(ctx, [row], origin, patient);
  return view as ChatMessageView;
}

/** POST .../chat/archive `{archiveDate}`: messages until then are hidden unless `includeArchived`. */
export async function archiveChat(ctx: Context, patientId: string, archiveDate: Date): Promise<void> {
  await withPatient(ctx, patientId, async (w, patient) => {
    await w.db
      .insertInto('chat_archives')
      .values({ tenant_id: ctx.scope.tenantId, patient_id: patient.id, archived_until: archiveDate, ...stamp(w) })
      .onConflict((conflict) =>
        conflict.columns(['tenant_id', 'patient_id']).doUpdateSet({ archived_until: archiveDate, ...stamp(w) }),
      )
      .execute();
    w.changed({
      action: 'CHAT_ARCHIVED',
      entityType: 'CHAT',
      entityId: null,
      patientId: patient.id,
      changedFields: ['archiveDate'],
    });
  });
}

export async function restoreChat(ctx: Context, patientId: string): Promise<void> {
  await withPatient(ctx, patientId, async (w, patient) => {
    await w.db
      .deleteFrom('chat_archives')
      .where('tenant_id', '=', ctx.scope.tenantId)
      .where('patient_id', '=', patient.id)
      .execute();
    w.changed({ action: 'CHAT_RESTORED', entityType: 'CHAT', entityId: null, patientId: patient.id });
  });
}

function stamp(w: Work) {
  return { created_at: w.now, created_by: w.actor.id, created_by_name: w.actor.name };
}
