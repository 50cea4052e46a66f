import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AppConfig } from '@app/config';
import { InFlightResponses } from './in-flight-responses';

/**
 * Takes the API out of service on shutdown (docs/api.md#processes), before Nest closes the HTTP
 * server and before the database pool and Redis close (those run in `onApplicationShutdown`,
 * after this hook). First readiness answers 503 while everything else is served as before, for
 * `SHUTDOWN_DELAY_MS`, so that load balancers stop sending requests here; then it drains: stop
 * accepting, close idle keep-alive connections, let requests in flight finish with
 * `Connection: close`, and cut what is left after `SHUTDOWN_GRACE_MS`.
 */
@Injectable()
export class HttpDrain implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  private shutdownStarted = false;
  private draining = false;
  private readonly inFlight = new InFlightResponses();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: AppConfig,
  ) {}

  private get server(): Server | undefined {
    return this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
  }

  /** From SIGTERM on: readiness answers 503, though requests are still served until the drain. */
  get shuttingDown(): boolean {
    return this.shutdownStarted;
  }

  onApplicationBootstrap(): void {
    // Prepended so that it runs before express answers, while headers can still be set.
    this.server?.prependListener('request', this.track);
  }

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server?.listening) return;
    this.shutdownStarted = true;
    const delayMs = this.config.shutdownDelayMs;
    if (delayMs > 0) {
      this.logger.log(`Readiness answers 503; serving for ${delayMs} ms more before draining`);
      await delay(delayMs);
    }
    this.draining = true;
    this.logger.log(`Draining HTTP connections: ${this.inFlight.size} requests in flight`);
    for (const res of this.inFlight) closeAfter(res);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const grace = new AbortController();
    const outcome = await Promise.race([
      closed.then(() => 'drained' as const),
      delay(this.config.SHUTDOWN_GRACE_MS, 'timed out' as const, { signal: grace.signal }),
    ]);
    grace.abort();
    if (outcome === 'timed out') {
      this.logger.warn(`Grace period over: closing connections with ${this.inFlight.size} requests in flight`);
      server.closeAllConnections();
      await closed;
    }
  }

  private readonly track = (_req: IncomingMessage, res: ServerResponse): void => {
    const leave = this.inFlight.add(res);
    if (this.draining) closeAfter(res);
    res.once('close', () => {
      leave();
      // A response whose headers went out before the drain kept its connection alive: close it once idle.
      if (this.draining) setImmediate(() => this.server?.closeIdleConnections());
    });
  };
}

/** Asks Node to end the connection once this response is sent, if its headers are still open. */
function closeAfter(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}
