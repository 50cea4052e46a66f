import type { ExecutionContext, Type } from '@nestjs/common';

/** The targets Nest's Reflector reads a route's metadata from: the handler, then its controller. */
export type RouteTargets = [handler: ReturnType<ExecutionContext['getHandler']>, controller: Type<unknown>];

/**
 * A value derived from a route's decorators, computed the first time the route is called and
 * kept: decorators do not change at run time, and reading them through the Reflector on every
 * request was a measurable share of a request's cost. Keyed by controller, then handler, since a
 * handler may be inherited by several controllers.
 */
export class PerRouteMemo<T> {
  private readonly byController = new WeakMap<object, WeakMap<object, T>>();

  constructor(private readonly derive: (targets: RouteTargets) => T) {}

  get(context: ExecutionContext): T {
    const controller = context.getClass();
    const handler = context.getHandler();
    let handlers = this.byController.get(controller);
    if (!handlers) this.byController.set(controller, (handlers = new WeakMap()));
    if (handlers.has(handler)) return handlers.get(handler) as T;
    const value = this.derive([handler, controller]);
    handlers.set(handler, value);
    return value;
  }
}
