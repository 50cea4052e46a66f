import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { HttpMetrics, UNMATCHED_ROUTE } from './http-metrics';

interface FakeExchange {
  req: Request;
  res: Response;
  finish(status: number): void;
  abort(): void;
}

function exchange(method: string, route?: { path: string; methods: Record<string, boolean> }, locals = {}): FakeExchange {
  const res = Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: false, locals });
  const req = { method, route } as unknown as Request;
  return {
    req,
    res: res as unknown as Response,
    finish(status) {
      res.statusCode = status;
      res.writableFinished = true;
      res.emit('close');
    },
    abort() {
      res.emit('close');
    },
  };
}

async function record(metrics: HttpMetrics, exchanges: Array<[FakeExchange, number | 'abort']>): Promise<string> {
  for (const [item, outcome] of exchanges) {
    metrics.middleware(item.req, item.res, () => undefined);
    if (outcome === 'abort') item.abort();
    else item.finish(outcome);
  }
  return metrics.registry.metrics();
}

describe('HttpMetrics', () => {
  it('labels requests by the route pattern, never the raw path', async () => {
    const text = await record(new HttpMetrics(), [
      [exchange('GET', { path: '/v2/resources/:id', methods: { get: true } }), 200],
      [exchange('GET', { path: '/v2/resources/:id', methods: { get: true } }), 200],
      [exchange('DELETE', { path: '/v2/resources/:id', methods: { delete: true } }), 404],
    ]);
    expect(text).toContain('http_requests_total{method="GET",route="/v2/resources/:id",status="200"} 2');
    expect(text).toContain('http_requests_total{method="DELETE",route="/v2/resources/:id",status="404"} 1');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/v2/resources/:id"} 2');
  });

  it('labels requests no endpoint matched as unmatched, middleware routes included', async () => {
    const everyMethod = Object.fromEntries(['get', 'post', 'put', 'patch', 'delete'].map((m) => [m, true]));
    const text = await record(new HttpMetrics(), [
      [exchange('GET'), 404],
      [exchange('POST', { path: '/v2/{*path}', methods: everyMethod }), 404],
      [exchange('POST', { path: '/v2', methods: { _all: true } }), 404],
    ]);
    expect(text).toContain(`http_requests_total{method="GET",route="${UNMATCHED_ROUTE}",status="404"} 1`);
    expect(text).toContain(`http_requests_total{method="POST",route="${UNMATCHED_ROUTE}",status="404"} 2`);
  });

  it('takes the label a middleware that answered by itself left in res.locals', async () => {
    const text = await record(new HttpMetrics(), [[exchange('GET', undefined, { routeLabel: '/v1/{*path}' }), 410]]);
    expect(text).toContain('http_requests_total{method="GET",route="/v1/{*path}",status="410"} 1');
  });

  it('counts a request whose client went away as 499', async () => {
    const text = await record(new HttpMetrics(), [[exchange('GET', { path: '/v2/users/me', methods: { get: true } }), 'abort']]);
    expect(text).toContain('http_requests_total{method="GET",route="/v2/users/me",status="499"} 1');
  });

  it('exposes the default process metrics and keeps each application in its own registry', async () => {
    const first = new HttpMetrics();
    const second = new HttpMetrics();
    await record(first, [[exchange('GET', { path: '/health/live', methods: { get: true } }), 200]]);
    expect(await first.registry.metrics()).toContain('process_cpu_user_seconds_total');
    expect(await second.registry.metrics()).not.toContain('route="/health/live"');
  });
});
