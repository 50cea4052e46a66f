import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Client } from 'pg';
import { AppConfig } from '@app/config';

/** The channel the `events_committed` trigger notifies (migration NotifyCommittedEvents). */
const CHANNEL = 'events_committed';
/** Wait before listening again after the connection is lost. */
const RECONNECT_DELAY_MS = 1000;

/**
 * Tells its subscriber, on a PostgreSQL connection of its own, each time a transaction that
 * wrote events commits. After a lost connection it listens again and calls the subscriber once,
 * for whatever committed in between. LISTEN belongs to a session, so the connection goes to the
 * server itself (DATABASE_DIRECT_URL), never through a pooler that lends sessions to others.
 */
@Injectable()
export class EventCommitListener implements OnModuleDestroy {
  private readonly logger = new Logger(EventCommitListener.name);
  private client?: Client;
  private retry?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly config: AppConfig) {}

  /** Starts listening; resolves once listening or once the first try failed (it keeps trying). */
  async start(onCommit: () => void): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.config.databaseDirectUrl,
      connectionTimeoutMillis: this.config.DATABASE_CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    this.client = client;
    const lost = (error?: Error): void => {
      if (this.client !== client) return;
      this.client = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn(`Listening for committed events stopped${error ? `: ${error.message}` : ''}; retrying`);
      this.retry = setTimeout(() => void this.start(onCommit), RECONNECT_DELAY_MS);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', () => onCommit());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      onCommit();
    } catch (error) {
      lost(error as Error);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
