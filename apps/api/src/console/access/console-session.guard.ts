import { CanActivate, ExecutionContext, Injectable, OnModuleInit, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AuthContext } from '@app/common';
import { httpRequestOf } from '../../platform/request/http-arguments';
import { PerRouteMemo } from '../../platform/routing/per-route-memo';
import { RouteTable } from '../../platform/routing/route-table';
import type { PageSignIn } from '../../rate-limit/page-sign-in';
import { ConsoleSessions } from './console-sessions';
import { carriesFormToken, expiredForm } from './form-token';
import type { ConsoleRequest } from './signed-in-user';

const BEFORE_SIGN_IN = 'rms:console:beforeSignIn';

/** Opts a console route out of the sign-in check: the sign-in page itself and the static files. */
export const BeforeSignIn = (): MethodDecorator & ClassDecorator => SetMetadata(BEFORE_SIGN_IN, true);

/** No live session: the console answers with its sign-in page, coming back to `returnTo` after. */
export class SignInRequired extends Error {
  constructor(readonly returnTo: string | undefined) {
    super('Sign in to the console first.');
  }
}

const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * Every console route needs a signed-in user unless it is marked `@BeforeSignIn()`, and every
 * form sent needs the session's CSRF token, as the OAuth consent form does: the cookie alone,
 * which a browser sends with any request, never changes anything. It also tells the rate limit
 * whose pages these are, so that they count against the account, not the address.
 */
@Injectable()
export class ConsoleSessionGuard implements CanActivate, PageSignIn, OnModuleInit {
  /** Whether each route is marked `@BeforeSignIn()`, read for every route at start-up. */
  private readonly beforeSignInRoutes: PerRouteMemo<boolean>;

  constructor(
    private readonly sessions: ConsoleSessions,
    reflector: Reflector,
    private readonly routeTable: RouteTable,
  ) {
    this.beforeSignInRoutes = new PerRouteMemo((targets) => reflector.getAllAndOverride<boolean | undefined>(BEFORE_SIGN_IN, targets) === true);
  }

  onModuleInit(): void {
    this.beforeSignInRoutes.prepare(this.routeTable.routes());
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.beforeSignIn(context)) return true;
    const req = httpRequestOf<ConsoleRequest>(context);
    const user = await this.sessions.signedIn(req);
    if (!user) throw new SignInRequired(READ_METHODS.has(req.method) ? req.originalUrl : undefined);
    if (!READ_METHODS.has(req.method) && !carriesFormToken(req.body, user.csrfToken)) throw expiredForm();
    req.signedIn = user;
    return true;
  }

  /** The signed-in account of a page; the pages before sign-in count by client IP, whoever sends them. */
  async accountOf(context: ExecutionContext): Promise<AuthContext | null> {
    if (this.beforeSignIn(context)) return null;
    const user = await this.sessions.signedIn(httpRequestOf<ConsoleRequest>(context));
    return user?.auth ?? null;
  }

  private beforeSignIn(context: ExecutionContext): boolean {
    return this.beforeSignInRoutes.get(context);
  }
}
