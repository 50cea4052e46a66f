import type { JobsOptions } from 'bullmq';

/**
 * Queue names and job payloads, declared once for the API (producer) and the worker (consumer).
 * A job carries ids only: the worker reads the current rows, so a job never acts on stale data.
 */
export const WEBHOOK_DELIVERIES_QUEUE = 'webhook-deliveries';
export const OUTBOX_RELAY_QUEUE = 'outbox-relay';

export const QUEUE_NAMES = [WEBHOOK_DELIVERIES_QUEUE, OUTBOX_RELAY_QUEUE] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/**
 * Options of every delivery job, with its `jobId`: an attempt that throws before its outcome is
 * recorded (PostgreSQL slow or unreachable) runs again after 1, 2, 4 and 8 s. The receiver's
 * failures are not these: the delivery row schedules them.
 */
export const DELIVERY_JOB_OPTIONS: Pick<JobsOptions, 'attempts' | 'backoff'> = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
};

/** One attempt at sending a stored webhook delivery (`dlv_...`). */
export interface WebhookDeliveryJob {
  deliveryId: string;
}

/** Publish committed events (`evt_...`) to the webhooks subscribed to them. */
export interface OutboxRelayJob {
  eventIds: string[];
}

/** The payload type of each queue, so producers and processors agree at compile time. */
export interface QueuePayloads {
  [WEBHOOK_DELIVERIES_QUEUE]: WebhookDeliveryJob;
  [OUTBOX_RELAY_QUEUE]: OutboxRelayJob;
}
