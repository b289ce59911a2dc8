import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { permissionCatalog } from '../formation/permissions.ts';
import { errorCatalog } from '../wire/errors.ts';
import { accessTable } from './access-table.ts';
import { DOCS_CSP } from './browser-security.ts';

const description = `
Cairn implements the Care Management Service API. Every route under \`/{tenantName}/\` needs
\`Authorization: Bearer <token>\` from \`POST /auth/token\`; the token is valid for one hour.

**Errors** are a JSON array holding one \`{errorCode, componentType, message, details, date}\`.
Codes: ${Object.entries(errorCatalog)
  .map(([code, entry]) => `\`${code}\` (${entry.status})`)
  .join(', ')}.

**Conventions:** timestamps are UTC \`YYYY-MM-DDTHH:mm:ss.SSSZ\`; phones are E.164; multi-value
query parameters are comma-separated; \`sort=<field>,<asc|desc>\`; PATCH changes only the fields
present; unknown query parameters and read-only body keys are ignored (patients' extra keys are
custom attributes, checked against the formation); deletes answer 200 with an empty body.

**Permissions** are granted by security policies, which roles group; both live in each instance's
formation. Each operation below names the one permission it needs (\`x-permission\`).

| Permission | Grants |
|---|---|
${Object.entries(permissionCatalog)
  .map(([name, text]) => `| \`${name}\` | ${text} |`)
  .join('\n')}

| Route | Permission |
|---|---|
${Object.entries(accessTable)
  .map(
    ([route, rule]) =>
      `| \`${route.replace(/:(\w+)/g, '{$1}')}\` | ${rule.public ? 'none (token route)' : `\`${rule.permission}\``}${rule.alsoNeeds ? `, and \`${rule.alsoNeeds.permission}\` when ${rule.alsoNeeds.when}` : ''}${rule.callers ? ` (${rule.callers} only)` : ''} |`,
  )
  .join('\n')}
`;

type OpenApiDocument = { paths?: Record<string, Record<string, Record<string, unknown>>> };

/** OpenAPI 3.1 generated from the route schemas, at /openapi.json, with interactive docs at /docs. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Cairn — Care Management Service API', version: '1.0.0', description },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearerAuth: [] }],
    },
    transformObject: (documentObject) =>
      withPermissions(('openapiObject' in documentObject ? documentObject.openapiObject : {}) as OpenApiDocument),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, docExpansion: 'none' },
    staticCSP: DOCS_CSP,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

function withPermissions(document: OpenApiDocument): OpenApiDocument {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    const route = path.replace(/\{(\w+)\}/g, ':$1');
    for (const [method, operation] of Object.entries(operations)) {
      const rule = accessTable[`${method.toUpperCase()} ${route}`];
      if (!rule?.permission) continue;
      operation['x-permission'] = rule.permission;
      const also = rule.alsoNeeds ? `; also \`${rule.alsoNeeds.permission}\` when ${rule.alsoNeeds.when}` : '';
      const note = `Needs permission \`${rule.permission}\`${also}${rule.callers ? `; ${rule.callers} callers only` : ''}.`;
      operation.description = operation.description ? `${note}\n\n${operation.description}` : note;
    }
  }
  return document;
}
