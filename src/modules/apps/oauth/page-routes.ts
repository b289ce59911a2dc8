import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../../wire/errors.ts';
import { InstanceParams } from '../../../wire/schemas.ts';
import { sendPage } from './interaction.ts';
import { errorPage } from './pages.ts';

/**
 * What the routes of the authorization pages share (routes.ts, and single sign-on's in
 * sso/sign-in-routes.ts): where they are, their schemas, and their errors answered as a page.
 */

export const BASE = '/:tenantName/:instanceName/fhir/R4';
export const PUBLIC = { access: { public: true } } as const;

export const InteractionParams = Type.Object({ ...InstanceParams.properties, uid: Type.String({ maxLength: 100 }) });
export const Html = Type.Unsafe<string>({ type: 'string' });
/** A page (sign-in, consent, an error a person reads), or a redirect's short one. */
export const page = (description: string) => ({ description, content: { 'text/html': { schema: Html } } });
/** Cairn's pages redirect with no body. */
export const onward = Type.Unsafe<void>(Type.Null({ description: 'Redirected (Location) onward in the authorization' }));
export const pageErrors = {
  400: page('A request that cannot go on, said on a page: never a redirect to an unregistered URI'),
  404: page('No such instance'),
};

/** The pages answer errors as a page: a person reads them, not a client. */
export function pageError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error instanceof ApiError ? error.status : error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
  request.log.info({ err: error }, 'an authorization page answered an error');
  return sendPage(
    reply,
    status,
    errorPage('This sign-in cannot go on', 'It may have expired, or been opened in another browser: start again from the app.'),
  );
}
