import { ExecutionContext, Injectable, OnModuleInit } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ScopeArea } from '@app/common';
import { ACCEPTS_CLIENT_BASIC, ACCEPTS_LEGACY_TOKEN, IS_PUBLIC } from '../platform/decorators/public.decorator';
import { SCOPE_AREA } from '../platform/decorators/scope.decorator';
import { PerRouteMemo } from '../platform/routing/per-route-memo';
import { RouteTable } from '../platform/routing/route-table';
import { USER_LOGIN_ONLY } from './decorators/user-login-only.decorator';

/** Who may call a route, as its decorators (and its controller's) declare it. */
export interface RouteAccess {
  isPublic: boolean;
  /** Takes a legacy `X-Auth-Token`, a removed method everywhere else. */
  acceptsLegacyToken: boolean;
  /** Takes HTTP Basic client authentication, a removed method everywhere else. */
  acceptsClientBasic: boolean;
  userLoginOnly: boolean;
  /** `null`: every credential may call it; `undefined`: undeclared, which the startup check refuses. */
  scopeArea: ScopeArea | null | undefined;
}

/** Each route's access rules, read through the Reflector for every route at start-up and shared by the guards. */
@Injectable()
export class RouteAccessReader implements OnModuleInit {
  private readonly routes: PerRouteMemo<RouteAccess>;

  constructor(
    reflector: Reflector,
    private readonly routeTable: RouteTable,
  ) {
    this.routes = new PerRouteMemo((targets) => ({
      isPublic: reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, targets) === true,
      acceptsLegacyToken: reflector.getAllAndOverride<boolean | undefined>(ACCEPTS_LEGACY_TOKEN, targets) === true,
      acceptsClientBasic: reflector.getAllAndOverride<boolean | undefined>(ACCEPTS_CLIENT_BASIC, targets) === true,
      userLoginOnly: reflector.getAllAndOverride<boolean | undefined>(USER_LOGIN_ONLY, targets) === true,
      scopeArea: reflector.getAllAndOverride<ScopeArea | null | undefined>(SCOPE_AREA, targets),
    }));
  }

  onModuleInit(): void {
    this.routes.prepare(this.routeTable.routes());
  }

  of(context: ExecutionContext): RouteAccess {
    return this.routes.get(context);
  }
}
