import { performance } from 'node:perf_hooks';
import { v7 as uuidv7 } from 'uuid';
import { settingsOf } from '../../config.ts';
import type { Services } from '../../http/services.ts';
import type { ClaimedJob } from '../../jobs/kinds.ts';
import { addressPolicy, OutboundError, post } from './outbound.ts';
import { webhookSettings } from './settings.ts';
import { signedHeaders, statusName } from './signature.ts';
import { type AttemptOutcome, deliveryToSend, finishAttempt, setDeliveryState, startAttempt } from './store.ts';

/**
 * Attempts before a delivery is given up (its job DEAD, the delivery FAILED): waits of 5 s
 * doubling to 4 hours put the last 9 to 18 hours after the first (the jitter shortens each wait
 * by up to half), so a receiver down overnight still gets everything once it is back.
 */
export const DELIVERY_ATTEMPTS = 16;
export const DELIVERY_BACKOFF = { baseMs: 5_000, maxMs: 4 * 60 * 60_000 };

/** The receiver did not answer 2xx: the job fails, and the queue retries it. */
export class DeliveryFailed extends Error {
  constructor(readonly code: string) {
    super(code);
    this.name = 'DeliveryFailed';
  }
}

/**
 * The `webhooks.deliver` job: one attempt to POST a delivery's event, signed, logged before it
 * goes (SENT) and after it is answered (DELIVERED on a 2xx, FAILED otherwise). A delivery already
 * delivered (the job ran again after its process died) is not sent again.
 */
export async function deliver(job: ClaimedJob, services: Services): Promise<void> {
  const { db, clock } = services;
  const delivery = await deliveryToSend(db, job.tenantId, String(job.payload.deliveryId));
  if (!delivery || delivery.state === 'DELIVERED') return;
  const { url, secret } = delivery;
  if (url === null || secret === null) {
    // Its subscription was deleted: nobody is left to deliver to.
    await setDeliveryState(db, delivery, 'FAILED', clock.now());
    return;
  }
  const settings = settingsOf(services.config, webhookSettings);
  const startedAt = clock.now();
  const attemptId = uuidv7();
  await startAttempt(db, {
    tenant_id: job.tenantId,
    id: attemptId,
    delivery_id: delivery.id,
    webhook_id: delivery.webhook_id,
    url,
    status: 'SENT',
    started_at: startedAt,
  });
  const started = performance.now();
  let outcome: Omit<AttemptOutcome, 'latencyMs' | 'finishedAt'>;
  try {
    const { status } = await post(url, {
      headers: signedHeaders(secret, delivery.event_id, startedAt, delivery.body),
      body: delivery.body,
      timeoutMs: settings.timeoutMs,
      allowed: addressPolicy(settings.allowPrivate),
    });
    const delivered = status >= 200 && status < 300;
    outcome = { status: delivered ? 'DELIVERED' : 'FAILED', statusCode: statusName(status), httpStatus: status, error: null };
  } catch (error) {
    outcome = {
      status: 'FAILED',
      statusCode: null,
      httpStatus: null,
      error: error instanceof OutboundError ? error.code : 'ERROR',
    };
  }
  const finishedAt = clock.now();
  await finishAttempt(db, job.tenantId, attemptId, delivery.id, {
    ...outcome,
    latencyMs: Math.round(performance.now() - started),
    finishedAt,
  });
  if (outcome.status === 'DELIVERED') return;
  if (job.attempt >= DELIVERY_ATTEMPTS) await setDeliveryState(db, delivery, 'FAILED', finishedAt);
  throw new DeliveryFailed(outcome.error ?? outcome.statusCode ?? 'FAILED');
}
