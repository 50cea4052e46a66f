import { once } from 'node:events';
import { createServer, AddressInfo } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { loadConfig } from '@app/config';
import { WorkerMetrics } from './worker-metrics';
import { WorkerMetricsServer } from './worker-metrics-server';

/** A port nothing listens on, as the kernel hands one out. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('WorkerMetricsServer', () => {
  let server: WorkerMetricsServer;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    const registry = new Registry();
    new Counter({ name: 'probe_total', help: 'A metric to find in the scrape.', registers: [registry] }).inc();
    // Only the registry is read when serving; the queue-backed metrics are not needed here.
    const metrics = { registry } as WorkerMetrics;
    server = new WorkerMetricsServer(loadConfig({ JWT_SECRET: 'x'.repeat(32), WORKER_METRICS_PORT: String(port) }), metrics);
    await server.onApplicationBootstrap();
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(() => server.beforeApplicationShutdown());

  it('answers GET /health with 200 while the process runs, for the health checks of compose and Kubernetes', async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('still serves GET /metrics, and nothing else', async () => {
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('probe_total 1');
    expect((await fetch(`${base}/health`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${base}/healthz`)).status).toBe(404);
  });
});
