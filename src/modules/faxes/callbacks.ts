import { Type } from 'typebox';
import type { Api, AreaOptions } from '../../http/plugin.ts';
import { acceptRawJson, checkedCallback } from '../../http/provider-callbacks.ts';
import { faxSlot } from '../../providers/fax/fax.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { receiveFax, reportFaxStatus } from './send.ts';

const VendorParams = Type.Object({ ...InstanceParams.properties, driver: Type.String({ maxLength: 40 }) });

/**
 * The fax vendor's webhook: one URL for reports on faxes sent and for faxes received. Its own
 * plugin because the vendor signs the JSON body's exact bytes, so here JSON is read as text.
 */
export async function faxCallbackRoutes(app: Api, { services }: AreaOptions): Promise<void> {
  acceptRawJson(app);

  app.post(
    '/:tenantName/:instanceName/providers/fax/:driver/events',
    {
      config: { access: { public: true } },
      schema: {
        tags: ['Fax'],
        summary: "The fax vendor's webhook: reports on faxes sent, and faxes received",
        description:
          "Give Telnyx `<CAIRN_PUBLIC_URL>/{tenantName}/{instanceName}/providers/fax/telnyx/events` as the fax application's webhook URL (Cairn also names it on every fax it sends). A report moves a fax on (SENDING, DELIVERED, FAILED with the vendor's reason), never back; a fax received lands RECEIVED, not reviewed, its document fetched by the `fax.document` job; other events are acknowledged and ignored. Signed by the vendor (Telnyx: Ed25519 over the timestamp and the body, checked with the SDK against the account's public key); 403 PROVIDER_SIGNATURE_INVALID, nothing changed, when the signature is missing, wrong or stale, or the instance's fax driver is another.",
        consumes: ['application/json'],
        params: VendorParams,
        body: Type.String({ description: 'The vendor’s JSON event, as sent' }),
        response: { 200: Type.Object({}), 400: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      const { scope, driver, body } = await checkedCallback(services, faxSlot, request, request.params);
      const event = driver.callbacks?.read(body) ?? null;
      if (event && 'report' in event) await reportFaxStatus(services, scope, event.report);
      if (event && 'received' in event) {
        const { externalId, from, to, contentUrl } = event.received;
        await receiveFax(services, scope, { externalId, from, to, documentUrl: contentUrl });
      }
      return {};
    },
  );
}
