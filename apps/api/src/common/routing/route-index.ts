import { METHODS } from 'node:http';
import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/** What express keeps of a route; `req.route` has the same shape. */
export interface ExpressRoute {
  path: unknown;
  methods: Record<string, boolean>;
}

interface RouterLayer {
  route?: ExpressRoute;
  match(path: string): boolean;
}

/**
 * True for a route that is an endpoint. Nest mounts module middleware as routes that accept
 * every method (`/v2`, `/v2/{*path}`, `/health`, ...); those are not endpoints.
 */
export function isEndpointRoute(route: ExpressRoute | undefined): route is ExpressRoute & { path: string } {
  if (!route || typeof route.path !== 'string' || route.path.includes('{*')) return false;
  return route.methods._all !== true && Object.keys(route.methods).length < METHODS.length;
}

/** Answers which methods exist for a path, so an unmatched method is 405 rather than 404. */
@Injectable()
export class RouteIndex {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  allowedMethods(path: string): string[] {
    const instance = this.adapterHost.httpAdapter?.getInstance<{ router?: { stack: RouterLayer[] } }>();
    const stack = instance?.router?.stack ?? [];
    const methods = new Set<string>();
    for (const layer of stack) {
      if (!isEndpointRoute(layer.route) || !layer.match(path)) continue;
      for (const [method, enabled] of Object.entries(layer.route.methods)) {
        if (enabled) methods.add(method.toUpperCase());
      }
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}
