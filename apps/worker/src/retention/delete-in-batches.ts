import { setTimeout as sleep } from 'node:timers/promises';

export interface BatchPlan {
  /** Rows asked of each batch. */
  batchSize: number;
  /** Wait between two batches, which lets the hot path and vacuum catch up. */
  pauseMs: number;
  /** Asked before every batch after the first; false stops (shutdown, or the lock was lost). */
  keepGoing: () => Promise<boolean>;
}

/**
 * Calls `deleteBatch` with the batch size until a batch deletes fewer rows than asked (nothing
 * is left) or `keepGoing` says stop, pausing between batches; returns how many rows it deleted.
 */
export async function deleteInBatches(deleteBatch: (limit: number) => Promise<number>, plan: BatchPlan): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(plan.batchSize);
    total += deleted;
    if (deleted < plan.batchSize) return total;
    await sleep(plan.pauseMs);
    if (!(await plan.keepGoing())) return total;
  }
}
