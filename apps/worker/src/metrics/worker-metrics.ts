import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { WEBHOOK_DELIVERIES_QUEUE, WebhookDeliveryJob } from '@app/queue';

/** Queue states worth watching: a growing `waiting` means the workers fall behind. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** What one attempt led to: the delivery done, scheduled again, or given up. */
export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed';

/**
 * The worker's Prometheus metrics. Queue depth is read from Redis on each scrape, so it is
 * the queue's, shared by every replica; the counters and histograms are this process's own.
 */
@Injectable()
export class WorkerMetrics {
  readonly registry = new Registry();

  private readonly attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Delivery attempts by outcome (succeeded, retrying, failed) and kind (event, or test trigger).',
    labelNames: ['outcome', 'kind'] as const,
    registers: [this.registry],
  });

  private readonly attemptDuration = new Histogram({
    name: 'webhook_delivery_attempt_duration_seconds',
    help: 'Time of one delivery attempt, from the connection to the end of the answer or the timeout.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  private readonly commitToArrival = new Histogram({
    name: 'webhook_delivery_commit_to_arrival_seconds',
    help: "Time from the event's commit (its created_at) to the receiver's 2xx answer, for event deliveries.",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 300, 3600, 14400],
    registers: [this.registry],
  });

  private readonly putOff = new Counter({
    name: 'webhook_delivery_put_off_total',
    help: "Deliveries put off without an attempt, their host lookup held back by the worker's own limits (the owner's lookups at their cap, no resolver free).",
    registers: [this.registry],
  });

  private readonly queueJobs: Gauge<'state'>;

  constructor(@InjectQueue(WEBHOOK_DELIVERIES_QUEUE) queue: Queue<WebhookDeliveryJob>) {
    collectDefaultMetrics({ register: this.registry });
    this.queueJobs = new Gauge({
      name: 'webhook_delivery_queue_jobs',
      help: 'Delivery jobs in the queue by state, read from Redis at each scrape.',
      labelNames: ['state'] as const,
      registers: [this.registry],
      async collect() {
        const counts = await queue.getJobCounts(...QUEUE_STATES);
        for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
      },
    });
  }

  /** One attempt; `eventCreatedAt` is given for a successful event delivery. */
  recordAttempt(outcome: AttemptOutcome, test: boolean, durationMs: number, eventCreatedAt?: Date): void {
    this.attempts.inc({ outcome, kind: test ? 'test' : 'event' });
    this.attemptDuration.observe(durationMs / 1000);
    if (eventCreatedAt && !test) this.commitToArrival.observe((Date.now() - eventCreatedAt.getTime()) / 1000);
  }

  /** A delivery put off by the worker's own limits: no attempt, so not among the attempts. */
  recordPutOff(): void {
    this.putOff.inc();
  }
}
