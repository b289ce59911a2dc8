import { contextOf, tenantContextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { EmptyBody, InstanceParams, TenantParams } from '../../wire/schemas.ts';
import { oauthEndpoints } from './oauth/endpoints.ts';
import oauthRoutes from './oauth/routes.ts';
import smartConfigurationRoutes from './oauth/smart-configuration.ts';
import { createApp, deleteApp, getApp, launchApp, launchableApps, listApps, rotateAppSecret, updateApp } from './operations.ts';
import {
  App,
  AppInput,
  AppList,
  AppParams,
  AppPatch,
  AppWithSecret,
  LaunchAnswer,
  LaunchableList,
  LaunchInput,
  LaunchParams,
} from './schemas.ts';
import identityProviderRoutes from './sso/routes.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Apps'];

const launch =
  'People let a registered app act for them at `<FHIR base>/oauth/authorize` (SMART App Launch 2.0; discovery at `<FHIR base>/.well-known/smart-configuration`); docs/identity.md.';

/** The answer shows a secret once: the idempotency mechanism must never keep it. */
const secretShownOnce = { ...needs('APP_WRITE'), idempotency: false } as const;

/** The tenant's SMART apps (admin API), and every instance's authorization server (oauth/routes.ts). */
const appRoutes: AreaPlugin = async (app, options) => {
  await app.register(oauthRoutes, options);
  // Under the FHIR base: the FHIR API's error format.
  await app.register(smartConfigurationRoutes, options);
  await app.register(identityProviderRoutes, options);

  app.get(
    '/:tenantName/admin/apps',
    {
      config: needs('APP_READ'),
      schema: {
        tags,
        summary: 'List the SMART apps registered in the tenant, by name (never their secrets)',
        description: launch,
        params: TenantParams,
        response: { 200: AppList, ...errors },
      },
    },
    async (request) => listApps(tenantContextOf(request)),
  );

  app.post(
    '/:tenantName/admin/apps',
    {
      config: secretShownOnce,
      schema: {
        tags,
        summary: "Register a SMART app; a confidential-symmetric one's secret is in the answer, this once",
        description: `Its client_id is made by the server. A name taken is 409 DUPLICATE_VALUE. ${launch}`,
        params: TenantParams,
        body: AppInput,
        response: { 201: AppWithSecret, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => reply.code(201).send(await createApp(tenantContextOf(request), request.body)),
  );

  app.get(
    '/:tenantName/admin/apps/:appId',
    {
      config: needs('APP_READ'),
      schema: { tags, summary: 'A SMART app (never its secret)', params: AppParams, response: { 200: App, ...errors } },
    },
    async (request) => getApp(tenantContextOf(request), request.params.appId),
  );

  app.patch(
    '/:tenantName/admin/apps/:appId',
    {
      config: needs('APP_WRITE'),
      schema: {
        tags,
        summary: 'Change an app: the keys given',
        description: 'A disabled app signs no one in and its tokens stop working at once.',
        params: AppParams,
        body: AppPatch,
        response: { 200: App, ...errors, 409: ErrorBody },
      },
    },
    async (request) => updateApp(tenantContextOf(request), request.params.appId, request.body),
  );

  app.post(
    '/:tenantName/admin/apps/:appId/secret',
    {
      config: secretShownOnce,
      schema: {
        tags,
        summary: "Replace a confidential-symmetric app's secret; the answer holds the new one, this once",
        params: AppParams,
        response: { 200: AppWithSecret, ...errors },
      },
    },
    async (request) => rotateAppSecret(tenantContextOf(request), request.params.appId),
  );

  app.delete(
    '/:tenantName/admin/apps/:appId',
    {
      config: needs('APP_WRITE'),
      schema: {
        tags,
        summary: 'Delete an app, with every code, grant and token it holds (they stop working at once)',
        params: AppParams,
        response: { 204: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      await deleteApp(tenantContextOf(request), request.params.appId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/:tenantName/:instanceName/apps',
    {
      config: needs('APP_LAUNCH'),
      schema: {
        tags,
        summary: 'The apps that may be opened for a patient here (EHR launch): enabled, with a launch URL',
        description: "What the console offers on a patient's page; the admin list (`/{tenantName}/admin/apps`) needs APP_READ.",
        params: InstanceParams,
        response: { 200: LaunchableList, ...errors },
      },
    },
    async (request) => ({ data: await launchableApps(tenantContextOf(request)) }),
  );

  app.post(
    '/:tenantName/:instanceName/apps/:appId/launch',
    {
      config: needs('APP_LAUNCH'),
      schema: {
        tags,
        summary: 'Open an app for a patient (SMART EHR launch): a `launch` value, good for 5 minutes',
        description:
          'The app is opened at its launch page with `iss` and `launch`; it sends `launch` back in its authorization request (with the `launch` scope), and the token answer names the patient (`patient`). The caller must read the patient (PATIENT_READ); a launch a user made is good for that user only. An app that is disabled or not registered for EHR launch is 400.',
        params: LaunchParams,
        body: LaunchInput,
        response: { 201: LaunchAnswer, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { issuer } = oauthEndpoints(ctx.services, request, ctx.tenant.name, ctx.instance.name);
      return reply.code(201).send(await launchApp(ctx, request.params.appId, request.body.patientId, issuer));
    },
  );
};

export default appRoutes;
