import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { EventRetentionRepository } from './event-retention.repository';
import { BatchPlan, deleteInBatches } from './delete-in-batches';
import { RetentionLock } from './retention-lock';

/** Rows per delete statement: a few milliseconds of locks, small enough for any hot table. */
export const RETENTION_BATCH_SIZE = 1000;
/** Between two batches, so that the API's writes and autovacuum keep up. */
const BATCH_PAUSE_MS = 100;
/** The lease outlives a batch by far; the pruner extends it after each one. */
const LEASE_MS = 60_000;
/** After a run the lease is kept this long, so that the fleet prunes about once an hour. */
const RUN_INTERVAL_MS = 60 * 60_000;
/** How often each worker asks for the lease; the first ask waits for the start to settle. */
const TRY_INTERVAL_MS = 5 * 60_000;
const FIRST_TRY_DELAY_MS = 60_000;

/** What one run deleted. */
export interface PrunedRows {
  deliveries: number;
  events: number;
  idempotencyOutcomes: number;
}

/**
 * Deletes events and webhook deliveries older than EVENT_RETENTION_DAYS, off the hot path: one
 * worker of the fleet at a time, under a lease in Redis, in batches with pauses between them.
 * Finished deliveries go first (by their last attempt), then the events no delivery refers to
 * any more; a pending delivery is never pruned, so it keeps its event until it ends. Expired
 * idempotency outcomes go last: they expire with their keys, a day after their write. A worker
 * that stops mid-run, or loses the lease, stops between batches and frees the lease; the next
 * run takes up where it left off, since every batch is the oldest rows left.
 */
@Injectable()
export class EventRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventRetention.name);
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly config: AppConfig,
    private readonly retention: EventRetentionRepository,
    private readonly lock: RetentionLock,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(FIRST_TRY_DELAY_MS);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One run if this worker gets the lease; null when another worker holds it (pruning, or pruned lately). */
  async prune(): Promise<PrunedRows | null> {
    const token = await this.lock.acquire(LEASE_MS);
    if (token === null) return null;
    // False once the worker stops or the lease is another's: no batch starts after that.
    let leaseHeld = true;
    const plan: BatchPlan = {
      batchSize: RETENTION_BATCH_SIZE,
      pauseMs: BATCH_PAUSE_MS,
      keepGoing: async () => (leaseHeld = !this.stopped && (await this.lock.extend(token, LEASE_MS))),
    };
    const days = this.config.EVENT_RETENTION_DAYS;
    let finished = false;
    try {
      const deliveries = await deleteInBatches((limit) => this.retention.deleteFinishedDeliveries(days, limit), plan);
      const goOn = leaseHeld && !this.stopped;
      const events = goOn ? await deleteInBatches((limit) => this.retention.deleteEvents(days, limit), plan) : 0;
      const idempotencyOutcomes =
        leaseHeld && !this.stopped ? await deleteInBatches((limit) => this.retention.deleteExpiredIdempotencyOutcomes(limit), plan) : 0;
      finished = leaseHeld && !this.stopped && (await this.lock.extend(token, RUN_INTERVAL_MS));
      return { deliveries, events, idempotencyOutcomes };
    } finally {
      // A run cut short (stop, failure) frees the lease for the next worker that asks; with
      // Redis unreachable, the lease expires by itself.
      if (!finished) await this.lock.release(token).catch(() => undefined);
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pruneAndLog().finally(() => this.schedule(TRY_INTERVAL_MS));
    }, delayMs);
  }

  private async pruneAndLog(): Promise<void> {
    try {
      const pruned = await this.prune();
      if (pruned && pruned.deliveries + pruned.events + pruned.idempotencyOutcomes > 0) {
        this.logger.log({ ...pruned, retentionDays: this.config.EVENT_RETENTION_DAYS }, 'pruned events, deliveries and idempotency outcomes past retention');
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'retention prune failed; the next run takes it up');
    }
  }
}
