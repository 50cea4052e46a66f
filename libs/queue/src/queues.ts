import type { JobsOptions } from 'bullmq';
import type { TraceContextHeaders } from '@app/telemetry';

/**
 * The queue of webhook delivery attempts and its job payload, declared once for the API and the
 * worker. A job carries ids only (and the trace it belongs to): the worker reads the current
 * rows, so a job never acts on stale data.
 */
export const WEBHOOK_DELIVERIES_QUEUE = 'webhook-deliveries';
/** The name of every job of that queue: one attempt of one delivery. */
export const DELIVERY_JOB_NAME = 'deliver';

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
  /** The span the attempt is a child of (the relay's, in the trace of the change); absent when tracing is off. */
  traceContext?: TraceContextHeaders;
}
