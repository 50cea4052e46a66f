/**
 * Queue names and job payloads, declared once for the API (producer) and the worker (consumer).
 * A job carries ids only: the worker reads the current rows, so a job never acts on stale data.
 */
export const WEBHOOK_DELIVERIES_QUEUE = 'webhook-deliveries';
export const OUTBOX_RELAY_QUEUE = 'outbox-relay';

export const QUEUE_NAMES = [WEBHOOK_DELIVERIES_QUEUE, OUTBOX_RELAY_QUEUE] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

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
