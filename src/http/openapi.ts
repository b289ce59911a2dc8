import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { DOCS_CSP } from './browser-security.ts';
import { idempotencyHeaders, takesIdempotencyKey } from './idempotency.ts';
import type { RequestBodies } from './request-bodies.ts';
import type { AccessTable, RouteAccess } from './route-access.ts';
import { isOptionalObject } from './validation.ts';

/** What the docs list of the areas' catalogs (platform/area.ts merges them). */
export interface DocumentedCatalogs {
  errors: Record<string, { status: number }>;
  permissions: Record<string, string>;
  auditActions: Record<string, { description: string; events: readonly string[] }>;
  events: Record<string, { description: string; subtypes: readonly string[] }>;
}

function description(catalogs: DocumentedCatalogs, accessTable: AccessTable): string {
  return `
Cairn implements the Care Management Service API. Every route under \`/{tenantName}/\` needs
\`Authorization: Bearer <token>\` from \`POST /auth/token\`; the token is valid for one hour.

**Errors** are a JSON array holding one \`{errorCode, componentType, message, details, date}\`.
Codes: ${Object.entries(catalogs.errors)
    .map(([code, entry]) => `\`${code}\` (${entry.status})`)
    .join(', ')}.

**Conventions:** timestamps are UTC \`YYYY-MM-DDTHH:mm:ss.SSSZ\`; phones are E.164; multi-value
query parameters are comma-separated; \`sort=<field>,<asc|desc>\`; PATCH changes only the fields
present; unknown query parameters and read-only body keys are ignored (patients' extra keys are
custom attributes, checked against the formation); deletes answer 200 with an empty body.

**Idempotent writes:** every POST, PATCH and PUT below that needs a token takes an
\`Idempotency-Key\` header (the IETF Idempotency-Key draft; a UUID is the usual key), but for the
two that show an API client's secret once, which ignore it (their operations list no such header). The first
request with a key runs; its answer is kept for 24 hours with a fingerprint of the request (method,
path and query, caller, body), and the key is marked in the same transaction as the write, so a
write that rolls back keeps no key. A repeat answers the kept status and body byte for byte, with
\`Idempotent-Replayed: true\`. The same key with another request is 422
\`IDEMPOTENCY_KEY_MISMATCH\`; a repeat while the first still runs is 409 \`IDEMPOTENCY_KEY_IN_USE\`
(with \`Retry-After\`). Keys belong to the tenant and the caller. Multipart and raw bodies are
streamed, so their fingerprint covers their media type, not their bytes. A request that stopped
mid-write (a node died) frees its key after 5 minutes; one that committed but lost its answer is
409 \`IDEMPOTENCY_KEY_ANSWER_LOST\`: read the record rather than write again.

**Permissions** are granted by security policies, which roles group; both live in each instance's
formation. Each operation below names the one permission it needs (\`x-permission\`), or the
permissions any one of which opens it (\`x-permission-any-of\`: it answers what those the caller holds read).

| Permission | Grants |
|---|---|
${Object.entries(catalogs.permissions)
  .map(([name, text]) => `| \`${name}\` | ${text} |`)
  .join('\n')}

| Route | Permission |
|---|---|
${[...accessTable]
  .map(
    ([route, rule]) =>
      `| \`${route.replace(/:(\w+)/g, '{$1}')}\` | ${rule.public ? 'none (token route)' : permissionsOf(rule)}${rule.alsoNeeds ? `, and \`${rule.alsoNeeds.permission}\` when ${rule.alsoNeeds.when}` : ''}${rule.callers ? ` (${rule.callers} only)` : ''} |`,
  )
  .join('\n')}

**Audit actions** (\`GET /{tenantName}/admin/audit-data\`, \`action\`):

| Action | Records | Events |
|---|---|---|
${Object.entries(catalogs.auditActions)
  .map(
    ([action, entry]) => `| \`${action}\` | ${entry.description} | ${entry.events.map((event) => `\`${event}\``).join(', ')} |`,
  )
  .join('\n')}

**Events** (DECISIONS §9): every create, update and delete of a stored record writes an event in
the same transaction, delivered to webhooks (\`/{tenantName}/admin/webhooks\`) at least once and in
order per record, signed as Standard Webhooks says. Entities and their subtypes:

| eventEntity | What | eventSubtype |
|---|---|---|
${Object.entries(catalogs.events)
  .map(
    ([entity, entry]) =>
      `| \`${entity}\` | ${entry.description} | ${entry.subtypes.map((subtype) => `\`${subtype}\``).join(', ')} |`,
  )
  .join('\n')}
`;
}

type OpenApiDocument = {
  info?: Record<string, unknown>;
  paths?: Record<string, Record<string, Record<string, unknown>>>;
};

/**
 * OpenAPI 3.1 generated from the route schemas, at /openapi.json, with interactive docs at /docs.
 * The document is made on first request, once every area's routes have declared their access.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  catalogs: DocumentedCatalogs,
  accessTable: AccessTable,
): Promise<void> {
  const ownBodies = new Map<string, RequestBodies>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Cairn — Care Management Service API', version: '1.0.0' },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearerAuth: [] }],
    },
    // Each write that takes Idempotency-Key documents the header (no route validates it: the hook
    // reads it); a body the route reads itself is noted here and documented in transformObject.
    transform: ({ schema, url, route }) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const bodies = route.config?.requestBodies;
      if (bodies) for (const method of methods) ownBodies.set(`${method.toLowerCase()} ${openApiPath(url)}`, bodies);
      const keyed = methods.some((method) => takesIdempotencyKey(method, route.config));
      return { url, schema: keyed ? { ...schema, headers: idempotencyHeaders } : schema };
    },
    transformObject: (documentObject) => {
      const document = ('openapiObject' in documentObject ? documentObject.openapiObject : {}) as OpenApiDocument;
      document.info = { ...document.info, description: description(catalogs, accessTable) };
      return withPermissions(withOwnBodies(withOptionalBodies(withOptionalDefaults(document)), ownBodies), accessTable) as never;
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, docExpansion: 'none' },
    staticCSP: DOCS_CSP,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

/** The request bodies routes read themselves (multipart forms, raw emails), by media type. */
function withOwnBodies(document: OpenApiDocument, bodies: Map<string, RequestBodies>): OpenApiDocument {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const own = bodies.get(`${method} ${path}`);
      if (!own) continue;
      const content = Object.fromEntries(Object.entries(own).map(([type, schema]) => [type, { schema }]));
      operation.requestBody = { required: true, content };
    }
  }
  return document;
}

type Parameter = { in?: string; required?: boolean; schema?: { default?: unknown } };

/** A body with no required field may be left out (validation.ts takes no body as `{}`), and the document says so. */
function withOptionalBodies(document: OpenApiDocument): OpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const body = operation.requestBody as { required?: boolean; content?: Record<string, { schema?: unknown }> } | undefined;
      const schemas = Object.values(body?.content ?? {}).map((content) => content.schema);
      if (body?.required && schemas.length > 0 && schemas.every(isOptionalObject)) body.required = false;
    }
  }
  return document;
}

/**
 * A query parameter with a default (`page`, `size`, `includeArchived`) is not Optional in its
 * TypeBox schema, so the generator lists it as required; the server fills it in when absent, so a
 * client need not send it, and the document says so.
 */
function withOptionalDefaults(document: OpenApiDocument): OpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const parameter of (operation.parameters ?? []) as Parameter[]) {
        if (parameter.in === 'query' && parameter.required && parameter.schema?.default !== undefined) parameter.required = false;
      }
    }
  }
  return document;
}

/** A rule's permission as the docs name it: `PATIENT_READ`, or any of `CHAT_READ`, `SMS_READ`. */
const permissionsOf = (rule: RouteAccess) =>
  rule.anyOf ? `any of ${rule.anyOf.map((name) => `\`${name}\``).join(', ')}` : `\`${rule.permission}\``;

function withPermissions(document: OpenApiDocument, accessTable: AccessTable): OpenApiDocument {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    const route = path.replace(/\{(\w+)\}/g, ':$1');
    for (const [method, operation] of Object.entries(operations)) {
      const rule = accessTable.get(`${method.toUpperCase()} ${route}`);
      if (!rule?.permission && !rule?.anyOf) continue;
      if (rule.permission) operation['x-permission'] = rule.permission;
      if (rule.anyOf) operation['x-permission-any-of'] = rule.anyOf;
      const also = rule.alsoNeeds ? `; also \`${rule.alsoNeeds.permission}\` when ${rule.alsoNeeds.when}` : '';
      const needed = rule.anyOf
        ? `Needs ${permissionsOf(rule)} (it answers what those the caller holds read)`
        : `Needs permission ${permissionsOf(rule)}`;
      const note = `${needed}${also}${rule.callers ? `; ${rule.callers} callers only` : ''}.`;
      operation.description = operation.description ? `${note}\n\n${operation.description}` : note;
    }
  }
  return document;
}
