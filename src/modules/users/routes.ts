import { Type } from 'typebox';
import { tenantContextOf } from '../../http/context.ts';
import { DataAndMeta, dataAndMeta, parseSort } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody, TenantParams, Uuid } from '../../wire/schemas.ts';
import { deleteUser, getUser, removeUserMfa, saveUser, setPassword } from './operations.ts';
import {
  PasswordInput,
  User,
  UserCreate,
  UserListQuery,
  UserLookupQuery,
  UserNameParams,
  UserPatch,
  UserTerritoriesInput,
  UserTerritoriesRecord,
} from './schemas.ts';
import { listUsers, sortableUserFields, type UserLookup } from './store.ts';
import { getTerritories, putTerritories } from './territories.ts';
import { userViews } from './views.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Users'];

/** 001: without `type` the segment is a username; `type=ID` a user id; `type=EMAIL` an email. */
const lookupOf = (type: 'ID' | 'EMAIL' | undefined): UserLookup => type ?? 'USERNAME';

const userRoutes: AreaPlugin = async (app) => {
  app.get(
    '/:tenantName/admin/users',
    {
      config: needs('USER_READ'),
      schema: {
        tags,
        summary: 'List users (data and meta)',
        description:
          '`territories` filters only together with `region`; alone it is ignored (DECISIONS §10). Name and email filters match whole values, any case.',
        params: TenantParams,
        querystring: UserListQuery,
        response: { 200: DataAndMeta(User), ...errors },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      const { page, size, sort, ...filter } = request.query;
      const { rows, total } = await listUsers(
        ctx.db,
        ctx.tenant.id,
        { page, size, ...filter },
        { page, size },
        parseSort(sort, sortableUserFields),
      );
      return dataAndMeta(userViews(ctx.tenant, rows), total, { page, size });
    },
  );

  app.post(
    '/:tenantName/admin/users',
    {
      config: needs('USER_PROVISION', {
        alsoNeeds: { permission: 'USER_REGIONS', when: "the body changes the user's territories" },
      }),
      schema: {
        tags,
        summary: 'Create a user (userState PROVISIONED)',
        params: TenantParams,
        body: UserCreate,
        response: { 201: User, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const ctx = tenantContextOf(request);
      reply.code(201);
      return saveUser(ctx, request.body, undefined);
    },
  );

  app.get(
    '/:tenantName/admin/users/:userName',
    {
      config: needs('USER_READ'),
      schema: {
        tags,
        summary: 'Read a user by username, id (type=ID) or email (type=EMAIL)',
        params: UserNameParams,
        querystring: UserLookupQuery,
        response: { 200: User, ...errors },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      return getUser(ctx, request.params.userName, lookupOf(request.query.type));
    },
  );

  app.patch(
    '/:tenantName/admin/users/:userName',
    {
      config: needs('USER_PROVISION', {
        alsoNeeds: { permission: 'USER_REGIONS', when: "the body changes the user's territories" },
      }),
      schema: {
        tags,
        summary: 'Change the fields present; roles, policies and territories are replaced when given',
        params: UserNameParams,
        querystring: UserLookupQuery,
        body: UserPatch,
        response: { 200: User, ...errors, 409: ErrorBody },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      const target = { key: request.params.userName, lookup: lookupOf(request.query.type), replace: false };
      return saveUser(ctx, request.body, target);
    },
  );

  app.put(
    '/:tenantName/admin/users/:userName',
    {
      config: needs('USER_PROVISION', {
        alsoNeeds: { permission: 'USER_REGIONS', when: "the body changes the user's territories" },
      }),
      schema: {
        tags,
        summary: 'Replace a user; absent fields take their defaults',
        params: UserNameParams,
        querystring: UserLookupQuery,
        body: UserCreate,
        response: { 200: User, ...errors, 409: ErrorBody },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      const target = { key: request.params.userName, lookup: lookupOf(request.query.type), replace: true };
      return saveUser(ctx, request.body, target);
    },
  );

  app.delete(
    '/:tenantName/admin/users/:userName',
    {
      config: needs('USER_PROVISION'),
      schema: {
        tags,
        summary: 'Delete a user (kept for the audit trail; listed with includeDeleted)',
        params: UserNameParams,
        querystring: UserLookupQuery,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = tenantContextOf(request);
      await deleteUser(ctx, request.params.userName, lookupOf(request.query.type));
      return reply.send();
    },
  );

  app.put(
    '/:tenantName/admin/users/:userName/password',
    {
      config: needs('USER_PROVISION'),
      schema: {
        tags,
        summary: 'Set the password a user with passwordAccess signs in with',
        params: UserNameParams,
        querystring: UserLookupQuery,
        body: PasswordInput,
        response: { 200: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = tenantContextOf(request);
      await setPassword(ctx, request.params.userName, lookupOf(request.query.type), request.body.password);
      return reply.send();
    },
  );

  app.delete(
    '/:tenantName/admin/users/:userName/mfa',
    {
      config: needs('USER_PROVISION'),
      schema: {
        tags,
        summary: "Remove a user's second factor (a lost authenticator): the user signs in with the password alone again",
        description:
          '204. 409 MFA_NOT_ENROLLED when the user has none. Audited (USER_MFA_REMOVED, acted by the administrator). Where the tenant requires a second factor, the user must add a new one before the next sign-in.',
        params: UserNameParams,
        querystring: UserLookupQuery,
        response: { 204: EmptyBody, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      await removeUserMfa(tenantContextOf(request), request.params.userName, lookupOf(request.query.type));
      return reply.code(204).send();
    },
  );

  const TerritoryParams = Type.Object({ tenantName: Type.String(), userId: Uuid });

  app.get(
    '/:tenantName/admin/user-territories/:userId',
    {
      config: needs('USER_READ'),
      schema: {
        tags,
        summary: "A user's regions and territories",
        params: TerritoryParams,
        response: { 200: UserTerritoriesRecord, ...errors },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      return getTerritories(ctx, request.params.userId);
    },
  );

  app.put(
    '/:tenantName/admin/user-territories/:userId',
    {
      config: needs('USER_REGIONS'),
      schema: {
        tags,
        summary: "Replace a user's regions and territories",
        description: "Each entry's region and territories must exist in that instance's current formation.",
        params: TerritoryParams,
        body: UserTerritoriesInput,
        response: { 200: UserTerritoriesRecord, ...errors },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      return putTerritories(ctx, request.params.userId, request.body);
    },
  );
};

export default userRoutes;
