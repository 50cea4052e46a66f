import { AsyncLocalStorage } from 'node:async_hooks';

/** Sends a batch of items in one round trip (to Redis, to PostgreSQL) and answers, in order, one result per item. */
export type BatchSender<Item, Result> = (items: readonly Item[]) => Promise<readonly Result[]>;

/**
 * True for a failure that one item can cause (PostgreSQL refusing one row's data, say): each item
 * of the failed call is then sent again in a call of its own, so that only the item at fault fails.
 */
export type FailureIsolation = (error: unknown) => boolean;

/**
 * Runs a function in the context this module was loaded in, before any request: a batch's round
 * trip is shared by its items, so it runs in none of theirs (not in the first item's trace, where
 * its client would record it again, nor under its log fields).
 */
const outsideAnyItem = AsyncLocalStorage.snapshot();

interface Pending<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/**
 * Gathers the items added in one turn of the event loop and sends them together, so that under
 * load many requests (or jobs) share one round trip. The batch leaves from `setImmediate`, after
 * every socket that was ready in that turn has been read. A batch larger than `maxPerCall` is
 * split so that no call holds the server long; a failed call rejects each of its items with its
 * error, unless `isolateFailure` says one item may be at fault: then each is sent alone. Each item's
 * caller resumes in its own context; the call itself runs in none of them.
 */
export class TurnBatch<Item, Result> {
  private pending: Array<Pending<Item, Result>> = [];

  constructor(
    private readonly send: BatchSender<Item, Result>,
    private readonly maxPerCall: number,
    private readonly isolateFailure?: FailureIsolation,
  ) {}

  add(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      if (this.pending.push({ item, resolve, reject }) === 1) setImmediate(() => outsideAnyItem(() => this.flush()));
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    for (let first = 0; first < batch.length; first += this.maxPerCall) {
      void this.call(batch.slice(first, first + this.maxPerCall));
    }
  }

  private async call(batch: ReadonlyArray<Pending<Item, Result>>): Promise<void> {
    try {
      const results = await this.send(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => entry.resolve(results[index]));
    } catch (error) {
      if (batch.length > 1 && this.isolateFailure?.(error)) {
        await Promise.all(batch.map((entry) => this.call([entry])));
        return;
      }
      for (const entry of batch) entry.reject(error);
    }
  }
}
