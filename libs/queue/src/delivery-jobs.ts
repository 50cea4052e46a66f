import type { Queue } from 'bullmq';
import type { TraceContextHeaders } from '@app/telemetry';
import { DELIVERY_JOB_NAME, DELIVERY_JOB_OPTIONS, WebhookDeliveryJob } from './queues';

/** The BullMQ job id of one attempt: a second enqueue of the same attempt is a no-op. */
export function deliveryJobId(deliveryId: string, attempt: number): string {
  return `${deliveryId}-${attempt}`;
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
    const jobId = deliveryJobId(delivery.id, delivery.attemptCount + 1);
    const job = await queue.getJob(jobId);
    if (!job) {
      await queue.add(DELIVERY_JOB_NAME, { deliveryId: delivery.id, traceContext }, { ...DELIVERY_JOB_OPTIONS, jobId });
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
