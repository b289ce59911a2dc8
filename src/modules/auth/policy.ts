import { Type } from 'typebox';
import type { TenantContext } from '../../http/context.ts';
import { write } from '../../work/write.ts';

/**
 * A tenant's sign-in policy: whether a second factor is required of every user who signs in with
 * a password (docs/identity.md "MFA"). Required, a user without one gets no token and no app sign-in
 * until they add one (the MFA routes still sign them in by password, to add it). API clients, and
 * people signing in through their organization's identity provider (which asks its own factors),
 * are not concerned.
 */

export const SignInPolicy = Type.Object({
  mfaRequired: Type.Boolean({
    description: 'Every user signing in with a password must have a second factor (TOTP); false by default',
  }),
});

export async function readSignInPolicy(ctx: TenantContext): Promise<{ mfaRequired: boolean }> {
  const row = await ctx.db
    .selectFrom('sign_in_policies')
    .select('mfa_required')
    .where('tenant_id', '=', ctx.tenant.id)
    .executeTakeFirst();
  return { mfaRequired: row?.mfa_required ?? false };
}

export async function setSignInPolicy(ctx: TenantContext, policy: { mfaRequired: boolean }): Promise<{ mfaRequired: boolean }> {
  await write(ctx, async (w) => {
    await w.db
      .insertInto('sign_in_policies')
      .values({ tenant_id: ctx.tenant.id, mfa_required: policy.mfaRequired, updated_at: w.now })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ mfa_required: policy.mfaRequired, updated_at: w.now }))
      .execute();
    w.changed({
      action: 'SIGN_IN_POLICY_UPDATED',
      entityType: 'SIGN_IN_POLICY',
      entityId: null,
      changedFields: ['mfaRequired'],
    });
  });
  return policy;
}
