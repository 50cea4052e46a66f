import { loadConfig } from '@app/config';
import { EventRetentionRepository } from './event-retention.repository';
import { EventRetention, RETENTION_BATCH_SIZE } from './event-retention.service';
import { RetentionLock } from './retention-lock';

/** The lease as Redis keeps it, in memory: one holder, and the lifetime each call gave it. */
class LeaseInMemory {
  holder: string | null = null;
  lifetimes: number[] = [];
  released = 0;
  private next = 0;

  acquire(ttlMs: number): Promise<string | null> {
    if (this.holder !== null) return Promise.resolve(null);
    this.holder = `token-${++this.next}`;
    this.lifetimes.push(ttlMs);
    return Promise.resolve(this.holder);
  }

  extend(token: string, ttlMs: number): Promise<boolean> {
    if (this.holder !== token) return Promise.resolve(false);
    this.lifetimes.push(ttlMs);
    return Promise.resolve(true);
  }

  release(token: string): Promise<void> {
    if (this.holder === token) {
      this.holder = null;
      this.released += 1;
    }
    return Promise.resolve();
  }
}

/** Tables of old rows; each delete takes what the batch asks for, and records the retention it was given. */
function oldRows(deliveries: number, events: number, idempotencyOutcomes = 0) {
  const left = { deliveries, events, idempotencyOutcomes };
  const days: number[] = [];
  const take = (table: keyof typeof left, retentionDays: number | null, limit: number): Promise<number> => {
    if (retentionDays !== null) days.push(retentionDays);
    const deleted = Math.min(limit, left[table]);
    left[table] -= deleted;
    return Promise.resolve(deleted);
  };
  const repository = {
    deleteFinishedDeliveries: jest.fn((retentionDays: number, limit: number) => take('deliveries', retentionDays, limit)),
    deleteEvents: jest.fn((retentionDays: number, limit: number) => take('events', retentionDays, limit)),
    deleteExpiredIdempotencyOutcomes: jest.fn((limit: number) => take('idempotencyOutcomes', null, limit)),
  };
  return { repository, left, days };
}

function retention(repository: Partial<EventRetentionRepository>, lease: LeaseInMemory, env: NodeJS.ProcessEnv = {}): EventRetention {
  const config = loadConfig({ JWT_SECRET: 'x'.repeat(32), ...env });
  return new EventRetention(config, repository as EventRetentionRepository, lease as unknown as RetentionLock);
}

describe('EventRetention', () => {
  it('deletes finished deliveries first, then events, with EVENT_RETENTION_DAYS, then expired idempotency outcomes, and keeps the lease for an hour after', async () => {
    const rows = oldRows(1500, 10, 3);
    const lease = new LeaseInMemory();
    const pruned = await retention(rows.repository, lease, { EVENT_RETENTION_DAYS: '7' }).prune();
    expect(pruned).toEqual({ deliveries: 1500, events: 10, idempotencyOutcomes: 3 });
    expect(rows.left).toEqual({ deliveries: 0, events: 0, idempotencyOutcomes: 0 });
    expect(new Set(rows.days)).toEqual(new Set([7]));
    expect(rows.repository.deleteFinishedDeliveries).toHaveBeenCalledWith(7, RETENTION_BATCH_SIZE);
    const lastDeliveryBatch = Math.max(...rows.repository.deleteFinishedDeliveries.mock.invocationCallOrder);
    expect(Math.min(...rows.repository.deleteEvents.mock.invocationCallOrder)).toBeGreaterThan(lastDeliveryBatch);
    expect(rows.repository.deleteExpiredIdempotencyOutcomes).toHaveBeenCalledWith(RETENTION_BATCH_SIZE);
    // A minute's lease, extended after each full batch, then an hour's, which holds the other workers off.
    expect(lease.lifetimes).toEqual([60_000, 60_000, 3_600_000]);
    expect(lease.holder).not.toBeNull();
    expect(lease.released).toBe(0);
  });

  it('does nothing while another worker holds the lease', async () => {
    const rows = oldRows(10, 10);
    const lease = new LeaseInMemory();
    lease.holder = 'another-worker';
    expect(await retention(rows.repository, lease).prune()).toBeNull();
    expect(rows.repository.deleteFinishedDeliveries).not.toHaveBeenCalled();
    expect(lease.holder).toBe('another-worker');
  });

  it('stops between batches when it loses the lease, and leaves the events for the next holder', async () => {
    const rows = oldRows(5000, 10);
    const lease = new LeaseInMemory();
    rows.repository.deleteFinishedDeliveries.mockImplementationOnce((_days: number, limit: number) => {
      // The lease expired during this batch and another worker took it.
      lease.holder = 'another-worker';
      rows.left.deliveries -= limit;
      return Promise.resolve(limit);
    });
    expect(await retention(rows.repository, lease).prune()).toEqual({ deliveries: 1000, events: 0, idempotencyOutcomes: 0 });
    expect(rows.repository.deleteEvents).not.toHaveBeenCalled();
    expect(rows.repository.deleteExpiredIdempotencyOutcomes).not.toHaveBeenCalled();
    expect(lease.holder).toBe('another-worker');
  });

  it('on shutdown, finishes the batch in flight, stops, and frees the lease for another worker', async () => {
    const rows = oldRows(5000, 10);
    const lease = new LeaseInMemory();
    const pruner = retention(rows.repository, lease);
    let stopping: Promise<void> = Promise.resolve();
    rows.repository.deleteFinishedDeliveries.mockImplementationOnce((_days: number, limit: number) => {
      stopping = pruner.onModuleDestroy();
      rows.left.deliveries -= limit;
      return Promise.resolve(limit);
    });
    expect(await pruner.prune()).toEqual({ deliveries: 1000, events: 0, idempotencyOutcomes: 0 });
    await stopping;
    expect(lease.holder).toBeNull();
    expect(lease.released).toBe(1);
  });

  it('frees the lease when a batch fails, so that the next worker to ask retries', async () => {
    const lease = new LeaseInMemory();
    const failing = { deleteFinishedDeliveries: () => Promise.reject(new Error('canceling statement due to statement timeout')) };
    await expect(retention(failing, lease).prune()).rejects.toThrow('statement timeout');
    expect(lease.holder).toBeNull();
  });
});
