import { Type } from 'typebox';
import { eachPatient, itsPatient, thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { PageObject, pageObject } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { InstanceParams, PatientParams } from '../../wire/schemas.ts';
import { paymentCallbackRoutes } from './callbacks.ts';
import { savePaymentMethod } from './operations.ts';
import { Subscription, SubscriptionInput, SubscriptionListQuery, SubscriptionParams } from './schemas.ts';
import { cancelSubscription, createSubscription, getSubscription, subscriptionPage } from './subscriptions.ts';

const PaymentMethod = Type.Object({
  paymentMethodId: Type.String({ minLength: 1, maxLength: 255, description: "The payments provider's method id (pm_...)" }),
});

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const subscriptions = '/:tenantName/:instanceName/payment/subscriptions';

/** 002 "Payments and invoices": saving a patient's payment method, and subscriptions. */
const paymentRoutes: AreaPlugin = async (app, options) => {
  await app.register(paymentCallbackRoutes, options);

  app.post(
    '/:tenantName/:instanceName/payment/patients/:patientId/payment-methods',
    {
      config: needs('PAYMENT_METHOD_UPDATE', { discloses: thePatient('PAYMENT_METHOD') }),
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

  app.post(
    subscriptions,
    {
      config: needs('SUBSCRIPTION_UPDATE', { discloses: itsPatient('SUBSCRIPTION', 'patient.id') }),
      schema: {
        tags: ['Payments'],
        summary: "Start a subscription: the patient's saved method charged each period",
        description:
          "Every field is required (002); `price.amount` is integer cents (DECISIONS §8). The payments provider schedules it: NOT_STARTED until `startDate`, then ACTIVE for `numberOfCycles` periods, then COMPLETED; its webhooks move the status on (PAST_DUE, CANCELED, ...). 400 PAYMENT_METHOD_MISSING when the patient has none saved, PAYMENT_DECLINED with the provider's words; 404 PATIENT_NOT_FOUND (a patient of the instance) or USER_NOT_FOUND (careMember: a user of the tenant, not deleted); 403 PAYMENTS_NOT_LICENSED.",
        params: InstanceParams,
        body: SubscriptionInput,
        response: { 200: Subscription, ...errors, 503: ErrorBody },
      },
    },
    async (request) => createSubscription(contextOf(request), request.body),
  );

  app.get(
    subscriptions,
    {
      config: needs('SUBSCRIPTION_READ', { discloses: eachPatient('SUBSCRIPTION', 'content', 'patient.id') }),
      schema: {
        tags: ['Payments'],
        summary: 'Subscriptions, newest first (page object); `patientId` and `status` filter',
        params: InstanceParams,
        querystring: SubscriptionListQuery,
        response: { 200: PageObject(Subscription), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort: _sort, ...filters } = request.query;
      const { content, total } = await subscriptionPage(contextOf(request), filters, { page, size });
      return pageObject(content, total, { page, size }, false);
    },
  );

  app.get(
    `${subscriptions}/:subscriptionId`,
    {
      config: needs('SUBSCRIPTION_READ', { discloses: itsPatient('SUBSCRIPTION', 'patient.id') }),
      schema: {
        tags: ['Payments'],
        summary: 'A subscription (404 SUBSCRIPTION_NOT_FOUND)',
        params: SubscriptionParams,
        response: { 200: Subscription, ...errors },
      },
    },
    async (request) => getSubscription(contextOf(request), request.params.subscriptionId),
  );

  app.delete(
    `${subscriptions}/:subscriptionId`,
    {
      config: needs('SUBSCRIPTION_UPDATE', { discloses: itsPatient('SUBSCRIPTION', 'patient.id') }),
      schema: {
        tags: ['Payments'],
        summary: 'Cancel a subscription at once: it answers CANCELED (again: the same, nothing changed)',
        params: SubscriptionParams,
        response: { 200: Subscription, ...errors, 503: ErrorBody },
      },
    },
    async (request) => cancelSubscription(contextOf(request), request.params.subscriptionId),
  );
};

export default paymentRoutes;
