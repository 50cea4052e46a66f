import { Client } from 'pg';
import type { ClientConfig } from 'pg';

/**
 * The pg 8 client fields the deadline reads: the statement on the wire (`activeQuery`'s getter
 * warns that it goes in pg 9; the field stays) and the connection's socket.
 */
interface PgClientInternals {
  _activeQuery?: object | null;
  connection: { stream: { destroy(error?: Error): void } };
}

/** A pool's client that the pool's deadline watches from its first answer to its end. */
interface DeadlineBoundClient {
  /** Fails the client's statement on the wire, and the client, when it has been there `deadlineMs`. */
  checkStatement(now: number, deadlineMs: number): void;
}

/**
 * The client-side bound on every statement of one pool, the pool's `Client`. pg's own
 * `query_timeout` sets and clears a timer for each statement (about 10 µs of a read, and each
 * request's objects held until a full collection); this watches the pool's connections instead,
 * on one timer that looks every twentieth of the deadline. A statement still on the wire
 * `deadlineMs` after it was first seen fails with pg's own 'Query read timeout', between
 * `deadlineMs` and a tenth more after it was sent, never earlier. Its connection is destroyed
 * with it, failing what was queued behind it, and the pool drops it: pg's timer left it in the
 * pool, waiting on a server that may never answer.
 */
export class StatementDeadline {
  readonly Client: (new (config?: ClientConfig) => Client) & { readonly deadlineMs: number };
  private readonly clients = new Set<DeadlineBoundClient>();
  private readonly periodMs: number;
  private timer?: NodeJS.Timeout;

  constructor(private readonly deadlineMs: number) {
    this.periodMs = Math.max(10, Math.ceil(deadlineMs / 20));
    const watch = (client: DeadlineBoundClient): void => this.watch(client);
    const unwatch = (client: DeadlineBoundClient): void => this.unwatch(client);
    this.Client = class extends Client implements DeadlineBoundClient {
      static readonly deadlineMs = deadlineMs;
      private watched: object | null = null;
      private watchedSince = 0;

      constructor(config?: ClientConfig) {
        super(config);
        // A lost connection fails the statements it carried; this keeps its 'error' event from
        // throwing while a holder between two statements has no listener (pg-pool removes its own).
        this.on('error', () => undefined);
        this.once('connect', () => watch(this));
        this.once('end', () => unwatch(this));
      }

      checkStatement(now: number, deadlineMs: number): void {
        const internals = this as unknown as PgClientInternals;
        const statement = internals._activeQuery ?? null;
        if (statement !== this.watched) {
          this.watched = statement;
          this.watchedSince = now;
        } else if (statement !== null && now - this.watchedSince >= deadlineMs) {
          this.watched = null;
          internals.connection.stream.destroy(new Error('Query read timeout'));
        }
      }
    };
  }

  private watch(client: DeadlineBoundClient): void {
    this.clients.add(client);
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), this.periodMs);
    this.timer.unref();
  }

  private unwatch(client: DeadlineBoundClient): void {
    this.clients.delete(client);
    if (this.clients.size > 0 || !this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    const now = performance.now();
    for (const client of this.clients) client.checkStatement(now, this.deadlineMs);
  }
}
