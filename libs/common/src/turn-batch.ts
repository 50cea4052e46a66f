/** Sends a batch of items in one round trip (to Redis, to PostgreSQL) and answers, in order, one result per item. */
export type BatchSender<Item, Result> = (items: readonly Item[]) => Promise<readonly Result[]>;

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
 * error.
 */
export class TurnBatch<Item, Result> {
  private pending: Array<Pending<Item, Result>> = [];

  constructor(
    private readonly send: BatchSender<Item, Result>,
    private readonly maxPerCall: number,
  ) {}

  add(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      if (this.pending.push({ item, resolve, reject }) === 1) setImmediate(() => this.flush());
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
      for (const entry of batch) entry.reject(error);
    }
  }
}
