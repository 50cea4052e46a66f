import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnModuleInit } from '@nestjs/common';
import { DelayedError, Job, Queue } from 'bullmq';
import { HOST_RESOLUTION_DEADLINE_MS } from '@app/common';
import { AppConfig } from '@app/config';
import { PendingDelivery, UnstorableAttemptError, WebhookDeliveryRepository } from '@app/database/delivery-data/webhook-delivery.repository';
import { WebhookRepository } from '@app/database/delivery-data/webhook.repository';
import { deliveryJob, queueDeliveryJob, WEBHOOK_DELIVERIES_QUEUE, WebhookDeliveryJob } from '@app/queue';
import { annotateActiveSpan, inSpan, SpanKind } from '@app/telemetry';
import { WorkerMetrics } from '../metrics/worker-metrics';
import { WebhookAgents } from './webhook-agents';
import { WebhookHostLookup } from './webhook-host-lookup';
import { SentAttempt, sendWebhook } from './webhook-sender';
import { signatureHeaders } from './webhook-signature';

/** 2xx within this time is success (docs/api.md#webhook-delivery). */
const DELIVERY_TIMEOUT_MS = 5000;
/** The receiver asked never to be called again. */
const GONE = 410;
/**
 * A job's lock, renewed every half of it while the attempt runs (an attempt lasts at most
 * DELIVERY_TIMEOUT_MS and two statements). When a worker dies, its jobs are free once the lock
 * runs out and the next stalled-job check, on any worker, queues them again: within 15 s of the
 * crash, where BullMQ's defaults (30 s and 30 s) took up to a minute.
 */
const DELIVERY_LOCK_MS = 10_000;
const STALLED_CHECK_INTERVAL_MS = 5_000;
/**
 * A delivery whose host lookup the worker put off waits this long, and up to half as long again
 * so that the put-off ones do not all come back together: about the time the lookups ahead of it
 * take at most.
 */
const PUT_OFF_MS = HOST_RESOLUTION_DEADLINE_MS;

/**
 * Sends one attempt of a delivery and schedules the next one as a delayed job. The delivery
 * row, not BullMQ, holds the attempt count, so a job repeated after a crash sends at most one
 * extra attempt and never skips the schedule.
 */
@Processor(WEBHOOK_DELIVERIES_QUEUE, { lockDuration: DELIVERY_LOCK_MS, stalledInterval: STALLED_CHECK_INTERVAL_MS })
export class WebhookDeliveryProcessor extends WorkerHost implements OnModuleInit {
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);
  private readonly schedule: number[];

  constructor(
    private readonly config: AppConfig,
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    @InjectQueue(WEBHOOK_DELIVERIES_QUEUE) private readonly queue: Queue<WebhookDeliveryJob>,
    private readonly metrics: WorkerMetrics,
    private readonly agents: WebhookAgents,
    private readonly hostLookup: WebhookHostLookup,
  ) {
    super();
    this.schedule = config.webhookRetrySchedule;
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.WEBHOOK_DELIVERY_CONCURRENCY;
  }

  /**
   * Each attempt is a span whose parent is the relay's (or the API request's, for a test or a
   * retry asked for): a child rather than a link, since one change causes the attempt, and so one
   * trace holds the request, its SQL, the relay, every attempt and the webhook request it sends.
   */
  async process(job: Job<WebhookDeliveryJob>, token?: string): Promise<void> {
    const attributes = { 'rms.delivery.id': job.data.deliveryId, 'messaging.destination.name': WEBHOOK_DELIVERIES_QUEUE };
    const putOff = await inSpan('webhook delivery', job.data.traceContext, { kind: SpanKind.CONSUMER, attributes }, () => this.attempt(job));
    if (putOff === null) return;
    // The same job, later: no attempt was made, so none is recorded and nothing counts against the webhook.
    this.logger.debug({ deliveryId: job.data.deliveryId, reason: putOff }, 'delivery put off');
    this.metrics.recordPutOff();
    await job.moveToDelayed(Date.now() + PUT_OFF_MS * (1 + Math.random() / 2), token);
    throw new DelayedError();
  }

  /** Makes the attempt; answers why, when the worker put it off instead, or null. */
  private async attempt(job: Job<WebhookDeliveryJob>): Promise<string | null> {
    const delivery = await this.deliveries.findPending(job.data.deliveryId);
    if (!delivery) return null;
    const { webhook } = delivery;
    if (webhook.status === 'disabled' && !delivery.test) return null;
    // A paused webhook's delivery waits, held, for the webhook to be enabled; tests are sent anyway.
    // One settled meanwhile (by another job of the same delivery) is not sent again.
    if (webhook.status === 'paused' && !delivery.test && (await this.deliveries.hold(delivery.id)) !== 'resumed') return null;
    annotateActiveSpan({ 'rms.webhook.id': delivery.webhookId, 'rms.event.id': delivery.eventId, 'rms.delivery.attempt': delivery.attemptCount + 1 });

    const headers = signatureHeaders(
      webhook.secret,
      { id: delivery.eventId, type: delivery.eventType },
      delivery.body,
      Math.floor(Date.now() / 1000),
      webhook.previousSecret,
    );
    const sent = await sendWebhook(webhook.url, delivery.body, headers, {
      timeoutMs: DELIVERY_TIMEOUT_MS,
      agents: this.agents,
      lookup: this.hostLookup.forOwner(webhook.ownerId),
    });
    if ('putOff' in sent) return sent.putOff;
    try {
      await this.settle(job, delivery, sent);
    } catch (error) {
      if (!(error instanceof UnstorableAttemptError)) throw error;
      // What the receiver sent cannot be kept: the attempt counts as failed, so the delivery still moves on.
      this.logger.warn({ err: error, webhookId: delivery.webhookId, deliveryId: delivery.id }, 'attempt could not be stored; recorded as failed without the answer');
      await this.settle(job, delivery, withoutAnswer(sent));
    }
    return null;
  }

  /** Records the attempt and moves the delivery on: succeeded, retried later, or failed (disabling its webhook). */
  private async settle(job: Job<WebhookDeliveryJob>, delivery: PendingDelivery, sent: SentAttempt): Promise<void> {
    const { succeeded, ...attempt } = sent;
    const attemptNumber = delivery.attemptCount + 1;
    // The place in the current schedule: a recovered delivery starts a fresh one.
    const scheduled = attemptNumber - delivery.scheduleStart;
    if (succeeded) {
      await this.deliveries.recordAttempt(delivery.id, attempt, 'succeeded', null);
      this.metrics.recordAttempt('succeeded', delivery.test, attempt.duration_ms, eventCreatedAt(delivery.body));
      return;
    }
    // Test deliveries make one attempt and never disable their webhook.
    if (delivery.test) {
      await this.deliveries.recordAttempt(delivery.id, attempt, 'failed', null);
      this.metrics.recordAttempt('failed', true, attempt.duration_ms);
      return;
    }
    const gone = attempt.status_code === GONE;
    if (gone || scheduled >= this.schedule.length) {
      const reason = gone
        ? `The receiver answered 410 Gone to delivery ${delivery.id}.`
        : `Delivery ${delivery.id} failed ${scheduled} times in a row; last: ${attempt.error ?? `HTTP ${attempt.status_code}`}.`;
      // The webhook first: whoever sees the delivery failed sees the webhook disabled.
      await this.webhooks.disable(delivery.webhookId, reason);
      await this.deliveries.recordAttempt(delivery.id, attempt, 'failed', null);
      this.metrics.recordAttempt('failed', false, attempt.duration_ms);
      this.logger.warn({ webhookId: delivery.webhookId, deliveryId: delivery.id }, 'webhook disabled');
      return;
    }
    const delay = this.schedule[scheduled];
    await this.deliveries.recordAttempt(delivery.id, attempt, 'pending', new Date(Date.now() + delay));
    await queueDeliveryJob(this.queue, deliveryJob(delivery.id, attemptNumber + 1, job.data.traceContext, delay));
    this.metrics.recordAttempt('retrying', false, attempt.duration_ms);
  }
}

/** The attempt as it can always be stored: what was answered dropped, counted as a failure. */
function withoutAnswer(sent: SentAttempt): SentAttempt {
  return {
    attempted_at: sent.attempted_at,
    status_code: sent.status_code,
    duration_ms: sent.duration_ms,
    error: 'the receiver answered, but its answer could not be stored',
    response_body: null,
    request_headers: null,
    response_headers: null,
    succeeded: false,
  };
}

/** The commit time of the event a delivery carries: its payload's `created_at`. */
function eventCreatedAt(body: string): Date | undefined {
  const { created_at: createdAt } = JSON.parse(body) as { created_at?: unknown };
  return typeof createdAt === 'string' ? new Date(createdAt) : undefined;
}
