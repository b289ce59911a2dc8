import { Type } from 'typebox';
import { contextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { PatientParams } from '../../wire/schemas.ts';
import { savePaymentMethod } from './operations.ts';

const PaymentMethod = Type.Object({
  paymentMethodId: Type.String({ minLength: 1, maxLength: 255, description: "The payments provider's method id (pm_...)" }),
});

/** 002 "Payments and invoices": saving a patient's payment method. */
const paymentRoutes: AreaPlugin = async (app) => {
  app.post(
    '/:tenantName/:instanceName/payment/patients/:patientId/payment-methods',
    {
      config: needs('PAYMENT_METHOD_UPDATE'),
      schema: {
        tags: ['Payments'],
        summary: "Save a patient's payment method for later off-session charges",
        description:
          "The instance's payments provider makes the patient's customer on the first method, attaches this one and sets it up for charges without the patient present (invoices are paid with it). 400 PAYMENT_METHOD_REJECTED with the provider's words when it refuses the id; 403 PAYMENTS_NOT_LICENSED when the operator has not licensed the tenant (CAIRN_PAYMENTS_LICENSED_TENANTS); 503 PAYMENT_PROVIDER_UNAVAILABLE when the provider did not answer. The sandbox takes Stripe's test ids (pm_card_visa) and refuses pm_card_chargeDeclined.",
        params: PatientParams,
        body: PaymentMethod,
        response: { 200: PaymentMethod, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 503: ErrorBody },
      },
    },
    async (request) => savePaymentMethod(contextOf(request), request.params.patientId, request.body.paymentMethodId),
  );
};

export default paymentRoutes;
