import { performance } from 'node:perf_hooks';
import { settingsOf } from '../../config.ts';
import { uuidv7 } from '../../db/ids.ts';
import { writeAccess } from '../../events/access.ts';
import type { EventBody } from '../../events/outbox.ts';
import type { Services } from '../../http/services.ts';
import type { ClaimedJob } from '../../jobs/kinds.ts';
import { recordingWindow, recordOutcome } from '../../jobs/recording.ts';
import { jobSettings } from '../../jobs/settings.ts';
import { addressPolicy } from '../../providers/network.ts';
import { OutboundError, post } from './outbound.ts';
import { webhookSettings } from './settings.ts';
import { signedHeaders, statusName } from './signature.ts';
import { type AttemptOutcome, type AttemptToSend, finishAttempt, startAttempt } from './store.ts';

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
 * goes (SENT) and after it is answered (DELIVERED on a 2xx, FAILED otherwise): two statements and
 * the request, then the runner's end of the job. A delivery already delivered (the job ran again after its process died) is not sent
 * again.
 */
export async function deliver(job: ClaimedJob, services: Services): Promise<void> {
  const { db, clock } = services;
  const startedAt = clock.now();
  const attemptId = uuidv7();
  const attempt = await startAttempt(db, job.tenantId, String(job.payload.deliveryId), attemptId, startedAt);
  if (!attempt) return;
  await recordDisclosure(services, job, attempt, startedAt);
  const settings = settingsOf(services.config, webhookSettings);
  const started = performance.now();
  let outcome: Omit<AttemptOutcome, 'latencyMs' | 'finishedAt' | 'last'>;
  try {
    const { status } = await post(attempt.url, {
      headers: signedHeaders(attempt.secret, attempt.eventId, startedAt, attempt.body),
      body: attempt.body,
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
  const delivered = outcome.status === 'DELIVERED';
  const ended = {
    ...outcome,
    latencyMs: Math.round(performance.now() - started),
    finishedAt,
    // Out of attempts: the delivery is FAILED with it (its job will be DEAD).
    last: job.attempt >= DELIVERY_ATTEMPTS,
  };
  // The receiver has the event: a fault now must not make it send again, so the outcome is retried.
  await recordOutcome(
    () => finishAttempt(db, job.tenantId, attemptId, attempt.deliveryId, ended),
    recordingWindow(settingsOf(services.config, jobSettings).leaseMs),
  );
  if (!delivered) throw new DeliveryFailed(outcome.error ?? outcome.statusCode ?? 'FAILED');
}

/**
 * An event about a patient tells its receiver that patient's id and what happened to their record:
 * each attempt is in the access log (actor WEBHOOK, the subscription), written before the body goes,
 * with outcome 0 (the receiver's answer is on the attempt).
 */
async function recordDisclosure(services: Services, job: ClaimedJob, attempt: AttemptToSend, at: Date): Promise<void> {
  const event = JSON.parse(attempt.body) as Pick<EventBody, 'patientId' | 'recordId' | 'eventEntity'>;
  if (!event.patientId) return;
  await writeAccess(services.db, {
    tenantId: job.tenantId,
    instanceId: job.instanceId,
    actor: { type: 'WEBHOOK', id: attempt.webhookId, name: null, onBehalfOf: null },
    at,
    clientAddress: null,
    requestId: null,
    operation: job.kind,
    resourceType: event.eventEntity,
    patientIds: [event.patientId],
    recordIds: [event.recordId, attempt.deliveryId].filter((id): id is string => id !== null),
    outcome: 0,
  });
}
