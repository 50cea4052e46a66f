import type { ExecutionContext, Type } from '@nestjs/common';

/** The targets Nest's Reflector reads a route's metadata from: the handler, then its controller. */
export type RouteTargets = [handler: ReturnType<ExecutionContext['getHandler']>, controller: Type<unknown>];

/**
 * A value derived from a route's decorators, kept once derived: decorators do not change at run
 * time, and reading them through the Reflector on every request was a measurable share of a
 * request's cost. `prepare` derives it for every route of the app's controllers at start-up, so
 * that a request only looks it up; a route it did not see (a unit test's) is derived on its first
 * request. Keyed by controller, then handler, since a handler may be inherited by several
 * controllers.
 */
export class PerRouteMemo<T> {
  private readonly byController = new WeakMap<object, WeakMap<object, T>>();

  constructor(private readonly derive: (targets: RouteTargets) => T) {}

  /** Derives the value of each of these routes (RouteTable's, at start-up). */
  prepare(routes: readonly RouteTargets[]): void {
    for (const [handler, controller] of routes) this.remember(controller, handler, this.derive([handler, controller]));
  }

  get(context: ExecutionContext): T {
    const controller = context.getClass();
    const handler = context.getHandler();
    const handlers = this.byController.get(controller);
    if (handlers?.has(handler)) return handlers.get(handler) as T;
    return this.remember(controller, handler, this.derive([handler, controller]));
  }

  private remember(controller: object, handler: object, value: T): T {
    let handlers = this.byController.get(controller);
    if (!handlers) this.byController.set(controller, (handlers = new WeakMap()));
    handlers.set(handler, value);
    return value;
  }
}
