import type { Formation } from '../../formation/schemas.ts';
import { type FormationRow, publishDraft, saveDraft } from '../../formation/store.ts';
import type { Context } from '../../http/context.ts';
import { ApiError, validationError } from '../../wire/errors.ts';
import { write } from '../../work/write.ts';
import { lockOutProblems } from './lock-out.ts';

export async function putDraft(ctx: Context, document: Formation): Promise<FormationRow> {
  const { scope } = ctx;
  // Unknown keys inside items are ignored (DECISIONS §10): dropped, so no read can show them.
  const clean = ctx.services.formationShape.clean(document);
  return write(ctx, async (w) => {
    const row = await saveDraft(w.db, scope.tenantId, scope.instanceId, clean, w.now);
    w.changed({ action: 'FORMATION_DRAFT_SAVED', entityType: 'FORMATION', entityId: '-1' });
    return row;
  });
}

/** Publishes the draft after checking it; the new version becomes current at once. */
export async function publish(ctx: Context): Promise<FormationRow> {
  const { actor, scope } = ctx;
  const { instanceId } = scope;
  const published = await write(ctx, async (w) => {
    const trx = w.db;
    const draft = await trx
      .selectFrom('formations')
      .select('document')
      .where('tenant_id', '=', actor.tenantId)
      .where('instance_id', '=', instanceId)
      .where('version', '=', -1)
      // Locked until commit, so a draft saved meanwhile cannot slip in unchecked (publishDraft reads it again).
      .forUpdate()
      .executeTakeFirst();
    if (!draft) throw new ApiError('FORMATION_NOT_FOUND', { version: 'draft' }, 'There is no draft to publish');
    const document = draft.document as Formation;
    const shape = ctx.services.formationShape;
    const problems = shape.problems(document);
    if (problems.length === 0) problems.push(...(await lockOutProblems(trx, actor, instanceId, document)));
    if (problems.length > 0) {
      throw new ApiError('FORMATION_INVALID', { errors: problems }, problems.map((p) => `${p.path}: ${p.message}`).join('; '));
    }
    const row = await publishDraft(trx, actor.tenantId, instanceId, actor.name, w.now);
    w.changed({ action: 'FORMATION_PUBLISHED', entityType: 'FORMATION', entityId: String(row.version) });
    // Sections that act on a new version do so in its write: published together, or not at all.
    for (const section of shape.sections) await section.published?.(w, { tenantId: actor.tenantId, instanceId }, document);
    return row;
  });
  await ctx.services.forgetCaches();
  return published;
}

/** `cairn formation apply`: checks a formation file's shape (the HTTP route's schema does for requests), sets the draft and publishes it. */
export async function applyFormation(ctx: Context, document: unknown) {
  const problems = ctx.services.formationShape.shapeProblems(document);
  if (problems.length > 0) throw validationError(problems);
  await putDraft(ctx, document as Formation);
  return publish(ctx);
}
