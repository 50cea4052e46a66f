import { Injectable, OnModuleInit } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '../platform/decorators/public.decorator';
import { SCOPE_AREA } from '../platform/decorators/scope.decorator';
import type { RouteTargets } from '../platform/routing/per-route-memo';
import { RouteTable } from '../platform/routing/route-table';

/** `Controller.method` of every route that is neither `@Public()` nor declares `@ScopeArea(...)`. */
export function findUndeclaredRoutes(routes: readonly RouteTargets[], reflector: Reflector): string[] {
  const undeclared: string[] = [];
  for (const targets of routes) {
    if (reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) continue;
    if (reflector.getAllAndOverride<unknown>(SCOPE_AREA, targets) !== undefined) continue;
    const [handler, controller] = targets;
    undeclared.push(`${controller.name}.${handler.name}`);
  }
  return undeclared;
}

/**
 * Refuses to start an application with a route that says neither who may call it
 * (`@Public()`) nor which scope it needs (`@ScopeArea`): a forgotten decorator is a failed
 * start, not an endpoint that any API key may call.
 */
@Injectable()
export class ScopeDeclarationCheck implements OnModuleInit {
  constructor(
    private readonly routeTable: RouteTable,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const undeclared = findUndeclaredRoutes(this.routeTable.routes(), this.reflector);
    if (undeclared.length > 0) {
      throw new Error(
        `Every route must be @Public() or declare @ScopeArea(...); these declare neither: ${undeclared.join(', ')}.`,
      );
    }
  }
}
