import type { JobsOptions, Queue } from 'bullmq';
import type { TraceContextHeaders } from '@app/telemetry';
import { DELIVERY_JOB_NAME, DELIVERY_JOB_OPTIONS, WebhookDeliveryJob } from './queues';

/** The BullMQ job id of one attempt: a second enqueue of the same attempt is a no-op. */
export function deliveryJobId(deliveryId: string, attempt: number): string {
  return `${deliveryId}-${attempt}`;
}

/** One attempt's job as `Queue.add` and `Queue.addBulk` take it. */
export interface DeliveryJob {
  name: typeof DELIVERY_JOB_NAME;
  data: WebhookDeliveryJob;
  opts: JobsOptions & { jobId: string };
}

/**
 * The job of a delivery's attempt, the one way every producer (the relay, the processor's
 * retries, a manual retry, the sweeper) builds it: its name, payload, options and id.
 */
export function deliveryJob(deliveryId: string, attempt: number, traceContext?: TraceContextHeaders, delayMs?: number): DeliveryJob {
  const opts: DeliveryJob['opts'] = { ...DELIVERY_JOB_OPTIONS, jobId: deliveryJobId(deliveryId, attempt) };
  if (delayMs !== undefined) opts.delay = delayMs;
  return { name: DELIVERY_JOB_NAME, data: { deliveryId, traceContext }, opts };
}

/** Adds an attempt's job to the queue. */
export async function queueDeliveryJob(queue: Queue<WebhookDeliveryJob>, job: DeliveryJob): Promise<void> {
  await queue.add(job.name, job.data, job.opts);
}

/**
 * Makes sure the next attempt of each delivery, in the order given, has a job to run: queues it
 * when none exists, runs it again when its job already ran (it found the delivery held, say) and
 * leaves alone a job still waiting, delayed or running, so that callers racing one another (a
 * release, a recovery, the sweeper) queue each attempt once. Returns how many it queued or ran again.
 */
export async function queueNextAttempts(
  queue: Queue<WebhookDeliveryJob>,
  deliveries: ReadonlyArray<{ id: string; attemptCount: number }>,
  traceContext?: TraceContextHeaders,
): Promise<number> {
  let queued = 0;
  for (const delivery of deliveries) {
    const next = deliveryJob(delivery.id, delivery.attemptCount + 1, traceContext);
    const job = await queue.getJob(next.opts.jobId);
    if (!job) {
      await queueDeliveryJob(queue, next);
      queued += 1;
      continue;
    }
    const state = await job.getState();
    if (state === 'failed' || state === 'completed') {
      // Another caller may have run it again a moment ago; then there is nothing left to do.
      await job.retry(state).catch(() => undefined);
      queued += 1;
    }
  }
  return queued;
}
