import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { EventCommitListener, EventOutbox, toEventPayload } from '@app/database';
import { deliveryKey, WebhookDeliveryRepository } from '@app/database/delivery-data/webhook-delivery.repository';
import { WebhookRepository } from '@app/database/delivery-data/webhook.repository';
import { deliveryJob, WEBHOOK_DELIVERIES_QUEUE, WebhookDeliveryJob } from '@app/queue';
import { BatchSpans, SpanKind } from '@app/telemetry';

/** Events relayed per transaction. */
const BATCH_SIZE = 200;
/**
 * A notified pass starts this much later, gathering the commits that follow: at hundreds of
 * events a second a pass then takes several, and a replica that lost the race finds nothing
 * less often.
 */
const WAKE_GATHER_MS = 10;

/**
 * Moves committed events to delivery jobs, woken by PostgreSQL at each commit that wrote events
 * and, should a notification be missed, every WEBHOOK_RELAY_INTERVAL_MS. In one transaction it
 * claims a batch of unpublished events, marking them published (SKIP LOCKED, so replicas take
 * different batches and, once it commits, never the same event), and creates one delivery per
 * matching enabled webhook; then it queues one job per delivery. If Redis refuses the jobs, the
 * events are given back and wait for the next pass; if the process dies before queueing, the
 * delivery sweeper queues the pending deliveries once they are overdue. Relaying an event again
 * finds the same deliveries and the same job ids, which BullMQ ignores (and a delivery no longer
 * pending is skipped by the processor).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(OutboxRelay.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private draining = false;
  /** A commit was announced during a pass: run another at once. */
  private woken = false;
  /** A notified pass is already due within WAKE_GATHER_MS. */
  private wakeDue = false;
  private stopped = false;

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly events: EventOutbox,
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    @InjectQueue(WEBHOOK_DELIVERIES_QUEUE) private readonly queue: Queue<WebhookDeliveryJob>,
    private readonly commits: EventCommitListener,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.schedule(0);
    await this.commits.start(() => this.wake());
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private wake(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.woken = true;
      return;
    }
    if (this.wakeDue) return;
    clearTimeout(this.timer);
    this.schedule(WAKE_GATHER_MS);
    this.wakeDue = true;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.wakeDue = false;
      this.draining = true;
      this.running = this.drain().finally(() => {
        this.draining = false;
        const again = this.woken;
        this.woken = false;
        this.schedule(again ? WAKE_GATHER_MS : this.config.WEBHOOK_RELAY_INTERVAL_MS);
      });
    }, delay);
  }

  /** Relays batches until none is left; a failure is logged and retried on the next pass. */
  private async drain(): Promise<void> {
    try {
      while (!this.stopped && (await this.relayBatch()) === BATCH_SIZE);
    } catch (error) {
      this.logger.warn({ err: error }, 'outbox relay pass failed; retrying');
    }
  }

  /**
   * Relays one batch; returns how many events it claimed. The deliveries are committed before
   * their jobs are queued: a job must find its row.
   */
  async relayBatch(): Promise<number> {
    const startedAt = new Date();
    const { claimed, deliveries } = await this.dataSource.transaction(async (manager) => {
      const events = await this.events.claimUnpublished(manager, BATCH_SIZE);
      const byId = new Map(events.map((event) => [event.id, event]));
      const targets = await this.webhooks.matchEvents(manager, events);
      const ids = await this.deliveries.insertMissing(
        manager,
        targets.map((target) => {
          const event = byId.get(target.eventId);
          if (!event) throw new Error(`matched an unclaimed event ${target.eventId}`);
          const payload = toEventPayload(event);
          return { ...target, eventType: payload.type, body: JSON.stringify(payload), test: false };
        }),
      );
      const relayed = targets.flatMap(({ eventId, webhookId }) => {
        const deliveryId = ids.get(deliveryKey(eventId, webhookId));
        return deliveryId ? [{ deliveryId, eventId }] : [];
      });
      return { claimed: events, deliveries: relayed };
    });
    if (claimed.length === 0) return 0;
    // A span in the trace of each event's request, whose jobs carry it to their deliveries.
    const spans = new BatchSpans(
      'outbox relay',
      { kind: SpanKind.PRODUCER, startTime: startedAt, attributes: { 'messaging.destination.name': WEBHOOK_DELIVERIES_QUEUE } },
      claimed.map((event) => ({ key: event.id, parent: event.traceContext, attributes: { 'rms.event.id': event.id, 'rms.event.type': event.type } })),
    );
    await spans.around(async () => {
      if (deliveries.length === 0) return;
      try {
        await this.queue.addBulk(deliveries.map(({ deliveryId, eventId }) => deliveryJob(deliveryId, 1, spans.traceContextOf(eventId))));
      } catch (error) {
        await this.events.release(claimed.map((event) => event.id));
        throw error;
      }
    });
    return claimed.length;
  }
}
