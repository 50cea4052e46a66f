import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { routePatternOf } from '../platform/routing/route-index';

/** The route label of requests no endpoint matched (404, 405): raw paths would be unbounded. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Status of a request whose client went away before the response was sent (nginx's 499). */
const CLIENT_CLOSED = 499;

/** One route and method's series: its duration, and its count per status. */
interface RouteSeries {
  duration: Histogram.Internal<'method' | 'route'>;
  requests: Map<number, Counter.Internal>;
}

/**
 * Request metrics labelled by route pattern (`/v2/resources/:id`), never by the raw path, so
 * cardinality stays bounded. One registry per application: tests run several in one process.
 */
@Injectable()
export class HttpMetrics {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status (499: client closed first).',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the first middleware to the end of the response, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /**
   * Each route's series, found once per method and status: prom-client hashes a label object
   * (its keys sorted and joined) on every `inc` and `observe`. Keyed by the route pattern and the
   * method, strings the router and the parser hand over already hashed, and the numeric status.
   */
  private readonly series = new Map<string, Map<string, RouteSeries>>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Express middleware; the work happens once, when the response closes. */
  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const route = routePatternOf(req, res) ?? UNMATCHED_ROUTE;
      const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED;
      const series = this.seriesOf(route, req.method);
      let requests = series.requests.get(status);
      if (!requests) series.requests.set(status, (requests = this.requests.labels(req.method, route, String(status))));
      requests.inc();
      series.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };

  private seriesOf(route: string, method: string): RouteSeries {
    let methods = this.series.get(route);
    if (!methods) this.series.set(route, (methods = new Map<string, RouteSeries>()));
    let series = methods.get(method);
    if (!series) methods.set(method, (series = { duration: this.duration.labels(method, route), requests: new Map<number, Counter.Internal>() }));
    return series;
  }
}
