import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DB } from '../../../db/schema.ts';
import type { Scope } from '../../../db/scope.ts';
import type {} from '../tables.ts';

/**
 * oidc-provider's storage (its Adapter interface) on `oauth_records`: every record is the tenant's
 * (tenant first in its key, one shard on Citus) and the instance's whose authorization server made
 * it, so a token of one instance is unknown to another's. Expired records are not found; a job
 * removes them (`apps.oauth-expire`).
 */
export class OAuthRecords implements Adapter {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly scope: Scope,
    private readonly model: string,
    private readonly now: () => Date,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const expiresAt = expiresIn ? new Date(this.now().getTime() + expiresIn * 1000) : null;
    const row = {
      payload: JSON.stringify(payload),
      grant_id: payload.grantId ?? null,
      client_id: payload.clientId ?? null,
      uid: payload.uid ?? null,
      expires_at: expiresAt,
    };
    await this.db
      .insertInto('oauth_records')
      .values({ tenant_id: this.scope.tenantId, instance_id: this.scope.instanceId, model: this.model, id, ...row })
      .onConflict((oc) => oc.columns(['tenant_id', 'model', 'id']).doUpdateSet(row))
      .execute();
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.findBy('id', id);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findBy('uid', uid);
  }

  async findByUserCode(): Promise<undefined> {
    // No device flow: nothing has a user code.
    return undefined;
  }

  async consume(id: string): Promise<void> {
    const consumed = JSON.stringify({ consumed: Math.floor(this.now().getTime() / 1000) });
    await this.db
      .updateTable('oauth_records')
      .set((eb) => ({ payload: eb('payload', '||', eb.val(consumed).$castTo<never>()) as never }))
      .where('tenant_id', '=', this.scope.tenantId)
      .where('model', '=', this.model)
      .where('id', '=', id)
      .execute();
  }

  async destroy(id: string): Promise<void> {
    await this.db
      .deleteFrom('oauth_records')
      .where('tenant_id', '=', this.scope.tenantId)
      .where('model', '=', this.model)
      .where('id', '=', id)
      .execute();
  }

  /**
   * Finds and removes an unexpired record in one statement: Cairn's own one-use records (a single
   * sign-on's attempt), good once even when two requests race for it.
   */
  async take(id: string): Promise<AdapterPayload | undefined> {
    const row = await this.db
      .deleteFrom('oauth_records')
      .where('tenant_id', '=', this.scope.tenantId)
      .where('model', '=', this.model)
      .where('id', '=', id)
      .where('instance_id', '=', this.scope.instanceId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', this.now())]))
      .returning('payload')
      .executeTakeFirst();
    return row?.payload as AdapterPayload | undefined;
  }

  /** Every record of a grant, of every model: a reused code or refresh token takes all it issued. */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db
      .deleteFrom('oauth_records')
      .where('tenant_id', '=', this.scope.tenantId)
      .where('grant_id', '=', grantId)
      .execute();
  }

  private async findBy(column: 'id' | 'uid', value: string): Promise<AdapterPayload | undefined> {
    const row = await this.db
      .selectFrom('oauth_records')
      .select(['payload'])
      .where('tenant_id', '=', this.scope.tenantId)
      .where('instance_id', '=', this.scope.instanceId)
      .where('model', '=', this.model)
      .where(column, '=', value)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', this.now())]))
      .executeTakeFirst();
    return row?.payload as AdapterPayload | undefined;
  }
}
