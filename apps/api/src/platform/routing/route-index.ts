import { METHODS } from 'node:http';
import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/**
 * The route pattern that answered a request (`/v2/resources/:id`): the endpoint's, or the one a
 * middleware that answers by itself names in `res.locals.routeLabel`; undefined when none did.
 * Raw paths would make metric labels and span names unbounded.
 */
export function routePatternOf(req: { route?: unknown }, res: { locals: Record<string, unknown> }): string | undefined {
  const route = req.route as ExpressRoute | undefined;
  if (isEndpointRoute(route)) return route.path;
  const label = res.locals.routeLabel;
  return typeof label === 'string' ? label : undefined;
}

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

/** A route without parameters: `/v2/resources/bulk`, not `/v2/resources/:id`. */
function isLiteral(route: ExpressRoute & { path: string }): boolean {
  return !/[:*{]/.test(route.path);
}

/**
 * The key express matches a literal route by: its router is case-insensitive and not strict,
 * so `/V2/Resources/Bulk/` is `/v2/resources/bulk`.
 */
function literalKey(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1).toLowerCase() : path.toLowerCase();
}

function methodsOf(routes: ExpressRoute[]): Set<string> {
  const methods = new Set<string>();
  for (const route of routes) {
    for (const [method, enabled] of Object.entries(route.methods)) {
      if (enabled) methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return methods;
}

/**
 * Answers which methods exist for a path, so an unmatched method is 405 rather than 404. A
 * literal route shadows templated ones: `/v2/resources/bulk` is the bulk endpoint, never the
 * resource `bulk` of `/v2/resources/{id}` (no id has that shape), as OpenAPI matches paths.
 */
@Injectable()
export class RouteIndex {
  /** Methods per literal path, built at the first request, once every route is registered. */
  private literals: Map<string, Set<string>> | undefined;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  allowedMethods(path: string): string[] {
    const matching = this.endpointRoutes().filter((layer) => layer.match(path)).map((layer) => layer.route);
    const literal = matching.filter(isLiteral);
    return [...methodsOf(literal.length > 0 ? literal : matching)].sort();
  }

  /**
   * Whether a request would reach a templated route although its path names a literal one
   * that lacks its method (`PUT /v2/resources/bulk`): such a request is refused as 405. One
   * map lookup per request.
   */
  isShadowedMethod(method: string, path: string): boolean {
    const methods = this.literalMethods().get(literalKey(path));
    return methods !== undefined && !methods.has(method);
  }

  private literalMethods(): Map<string, Set<string>> {
    if (!this.literals) {
      const byPath = new Map<string, ExpressRoute[]>();
      for (const { route } of this.endpointRoutes()) {
        if (!isLiteral(route)) continue;
        const key = literalKey(route.path);
        byPath.set(key, [...(byPath.get(key) ?? []), route]);
      }
      this.literals = new Map([...byPath].map(([path, routes]) => [path, methodsOf(routes)]));
    }
    return this.literals;
  }

  private endpointRoutes(): Array<RouterLayer & { route: ExpressRoute & { path: string } }> {
    // Express lists no routes publicly: its router's stack is read (docs/decisions.md).
    const instance = this.adapterHost.httpAdapter?.getInstance<{ router?: { stack: RouterLayer[] } }>();
    const stack = instance?.router?.stack ?? [];
    return stack.filter((layer): layer is RouterLayer & { route: ExpressRoute & { path: string } } => isEndpointRoute(layer.route));
  }
}
