import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AppConfig } from '@app/config';
import { WorkerMetrics } from './worker-metrics';

/**
 * Serves `GET /metrics` and `GET /health` on WORKER_METRICS_PORT. The worker has no HTTP server
 * otherwise, so this is a bare Node server: nothing else is exposed, and without the setting no
 * port opens.
 */
@Injectable()
export class WorkerMetricsServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WorkerMetricsServer.name);
  private server?: Server;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: WorkerMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.WORKER_METRICS_PORT;
    if (port === undefined) return;
    const server = createServer((req, res) => void this.answer(req, res));
    server.listen(port);
    await once(server, 'listening');
    this.server = server;
    this.logger.log(`Metrics on port ${port}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.method === 'GET' ? req.url?.split('?')[0] : undefined;
    if (path === '/health') {
      // Liveness: the event loop answers. Redis or PostgreSQL being down is not a reason to
      // restart the worker (a new one would wait for them just the same).
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end('{"status":"ok"}\n');
      return;
    }
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
      return;
    }
    try {
      const body = await this.metrics.registry.metrics();
      res.writeHead(200, { 'Content-Type': this.metrics.registry.contentType, 'Cache-Control': 'no-store' }).end(body);
    } catch (error) {
      this.logger.warn({ err: error }, 'metrics scrape failed');
      res.writeHead(503, { 'Content-Type': 'text/plain' }).end('Metrics unavailable\n');
    }
  }
}
