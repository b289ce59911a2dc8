import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { settingsOf } from '../config.ts';
import { providerSettings } from '../providers/settings.ts';
import type { ProviderScope, ProviderSlot } from '../providers/slot.ts';
import { ApiError } from '../wire/errors.ts';
import type { Api } from './plugin.ts';
import type { Services } from './services.ts';

/**
 * What a vendor posts to Cairn (an inbound SMS, a delivery report, a call's recording), checked
 * before anything is read: the route names the tenant, the instance and the driver; the instance's
 * driver for the channel must be that one, and must find the vendor's signature good for the URL
 * the vendor called (Cairn's public address, CAIRN_PUBLIC_URL, and the path). Anything else is a
 * 403 PROVIDER_SIGNATURE_INVALID and changes nothing.
 */

export interface VendorRequest {
  /** The URL the vendor called, as it signed it. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The form's fields (a form post). */
  params: Record<string, string>;
  /** The body as sent (a JSON post, its signature over the exact bytes). */
  body?: string;
}

/** What a driver that receives vendor callbacks offers. */
export interface Callbacks {
  verify(request: VendorRequest): boolean | Promise<boolean>;
}

/** The public URL of a path of this server, or null when CAIRN_PUBLIC_URL is not set. */
export function publicUrl(services: Services, path: string): string | null {
  const base = settingsOf(services.config, providerSettings).publicUrl;
  return base ? `${base}${path}` : null;
}

/** The base of an instance's callback URLs for a channel: `<public>/<tenant>/<instance>/providers/<channel>`. */
export function callbackBase(services: Services, tenantName: string, instanceName: string, channel: string): string | null {
  return publicUrl(services, `/${tenantName}/${instanceName}/providers/${channel}`);
}

export async function checkedCallback<D extends { callbacks?: Callbacks }, Env>(
  services: Services,
  slot: ProviderSlot<D, Env>,
  request: FastifyRequest,
  names: { tenantName: string; instanceName: string; driver: string },
): Promise<{ scope: ProviderScope; driver: D; params: Record<string, string>; body: string }> {
  const tenant = await services.tenant(names.tenantName);
  if (!tenant) throw new ApiError('TENANT_NOT_FOUND', { tenantName: names.tenantName });
  const instance = await services.instance(tenant.id, names.instanceName);
  if (!instance) throw new ApiError('INSTANCE_NOT_FOUND', { instanceName: names.instanceName });
  const scope = { tenantId: tenant.id, instanceId: instance.id };
  const chosen = await services.providers.for(slot as unknown as ProviderSlot<D, Services>, scope);
  const body = typeof request.body === 'string' ? request.body : '';
  const params = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, string>) : {};
  const url = publicUrl(services, request.url);
  const refused = (reason: string) => new ApiError('PROVIDER_SIGNATURE_INVALID', { reason });
  if (chosen.driver !== names.driver || !chosen.use.callbacks)
    throw refused(`the instance's ${slot.channel} driver is not ${names.driver}`);
  if (!url) throw refused('CAIRN_PUBLIC_URL is not set, so no signature can be checked');
  if (!(await chosen.use.callbacks.verify({ url, headers: request.headers, params, body })))
    throw refused('the signature does not match');
  return { scope, driver: chosen.use, params, body };
}

/** Vendors post forms (application/x-www-form-urlencoded): an area receiving their callbacks reads them as fields. */
export function acceptForms(
  app: { addContentTypeParser: Api['addContentTypeParser'] },
  /** A name given more than once becomes a list (a page's checkboxes); otherwise the last one counts. */
  { repeated = false }: { repeated?: boolean } = {},
): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 256 * 1024 },
    (_request, body, done) => {
      const params = new URLSearchParams(String(body));
      if (!repeated) return done(null, Object.fromEntries(params));
      const form: Record<string, string | string[]> = {};
      for (const [name, value] of params) {
        const had = form[name];
        form[name] = had === undefined ? value : [had, value].flat();
      }
      return done(null, form);
    },
  );
}

/** Vendors that sign a JSON body sign its exact bytes: an area receiving them reads the body as text. */
export function acceptRawJson(app: {
  removeContentTypeParser: Api['removeContentTypeParser'];
  addContentTypeParser: Api['addContentTypeParser'];
}): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 256 * 1024 }, (_request, body, done) =>
    done(null, String(body)),
  );
}
