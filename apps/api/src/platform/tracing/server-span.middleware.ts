import type { Request, Response } from 'express';
import { serverSpanMiddleware, ServerSpanMiddleware } from '@app/telemetry';
import { routePatternOf } from '../routing/route-index';

/**
 * The server span of each request, named `METHOD /route` by the route that answered, with the
 * client address Express reads past the trusted proxies; a pass-through when tracing is off.
 */
export function requestSpanMiddleware(): ServerSpanMiddleware<Request, Response> {
  return serverSpanMiddleware<Request, Response>({ routeOf: routePatternOf, clientAddressOf: (req) => req.ip });
}
