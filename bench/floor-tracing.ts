/**
 * The floor's tracing (`BENCH_FLOOR_TRACING=true`): the OpenTelemetry Node SDK as it comes, with no
 * instrumentation, its sampler, batch processor and OTLP exporter taken from the OTEL_* variables,
 * and the spans a read of the service records, made with the API directly and with no more
 * attributes than the conventions require and the service sends: a server span per request and a
 * client span per statement and per Redis call. What the floor loses to them is what the SDK
 * itself costs a read, whatever the app around it does.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Attributes, Tracer } from '@opentelemetry/api';
import type { Pool, QueryResult } from 'pg';

type OpenTelemetryApi = typeof import('@opentelemetry/api');

/**
 * The API and the floor's tracer once the SDK has started; undefined while the floor is untraced,
 * which then loads neither (its memory is a row's floor).
 */
const tracing = ((): { api: OpenTelemetryApi; tracer: Tracer } | undefined => {
  if (process.env.BENCH_FLOOR_TRACING !== 'true') return undefined;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  new NodeSDK({ metricReaders: [], logRecordProcessors: [], instrumentations: [] }).start();
  const api = require('@opentelemetry/api') as OpenTelemetryApi;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { api, tracer: api.trace.getTracer('bench-floor') };
})();

/** Express middleware giving each request its server span, active while it is handled; none while the floor is untraced. */
export function floorServerSpans(): ((req: Request, res: Response, next: NextFunction) => void) | undefined {
  if (!tracing) return undefined;
  const { api, tracer } = tracing;
  return (req, res, next) => {
    const span = tracer.startSpan(req.method, {
      kind: api.SpanKind.SERVER,
      attributes: { 'http.request.method': req.method, 'url.scheme': 'http', 'url.path': req.path },
    });
    res.once('close', () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      span.setAttribute('http.response.status_code', res.statusCode);
      if (route !== undefined) {
        span.setAttribute('http.route', route);
        span.updateName(`${req.method} ${route}`);
      }
      span.end();
    });
    api.context.with(api.trace.setSpan(api.context.active(), span), next);
  };
}

/**
 * Runs `work` in a client span named `name`, child of the active span; untraced, returns its
 * promise as it is, so that the untraced floor does exactly what it did without tracing.
 */
export function inFloorClientSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (!tracing) return work();
  const span = tracing.tracer.startSpan(name, { kind: tracing.api.SpanKind.CLIENT, attributes });
  return work().finally(() => span.end());
}

/** Gives each statement of `pool` its client span, named and described as the service's are. */
export function traceFloorStatements(pool: Pool, database: string): void {
  if (!tracing) return;
  const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<QueryResult>;
  const traced = (text: string, values?: unknown[]): Promise<QueryResult> => {
    const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
    const attributes = { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.text': text, 'db.namespace': database };
    return inFloorClientSpan(`${operation} ${database}`, attributes, () => query(text, values));
  };
  pool.query = traced as unknown as Pool['query'];
}
