import { ExecutionContext, Injectable, OnModuleInit, Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
import type { Response } from 'express';
import { AppConfig } from '@app/config';
import { AuthContext, RateLimitExceededError } from '@app/common';
import { setHeaders } from '../platform/answers/answer-writer';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import { FixedWindowRecord, FixedWindowStorage } from '../platform/redis/fixed-window.storage';
import { httpRequestOf } from '../platform/request/http-arguments';
import { requestStateOf } from '../platform/request/request-state';
import { PerRouteMemo } from '../platform/routing/per-route-memo';
import { RouteTable } from '../platform/routing/route-table';
import { PAGE_SIGN_IN, PageSignIn } from './page-sign-in';
import { isExemptPath, planOf, PlanLimits, quotaOf, RATE_WINDOW_MS, RateLimitQuota, rateLimitHeaders, trackerOf } from './rate-limit.policy';

/**
 * The per-plan request limit, as configured: which requests count, at which limit, and what the
 * answer says. RateLimitGuard counts routed requests through @nestjs/throttler; the error filter
 * counts those refused before it, here.
 */
@Injectable()
export class RateLimitService implements OnModuleInit {
  private readonly enabled: boolean;
  private readonly limits: PlanLimits;
  /** Each route's PageSignIn, when its controller names one; every route's found at start-up, once every provider exists. */
  private readonly pageSignIns: PerRouteMemo<PageSignIn | undefined>;

  constructor(
    private readonly windows: FixedWindowStorage,
    config: AppConfig,
    reflector: Reflector,
    moduleRef: ModuleRef,
    private readonly routeTable: RouteTable,
  ) {
    this.enabled = config.RATE_LIMIT_ENABLED === 'true';
    this.limits = config.planLimits;
    this.pageSignIns = new PerRouteMemo((targets) => {
      const signIn = reflector.getAllAndOverride<Type<PageSignIn> | undefined>(PAGE_SIGN_IN, targets);
      return signIn ? moduleRef.get(signIn, { strict: false }) : undefined;
    });
  }

  onModuleInit(): void {
    this.pageSignIns.prepare(this.routeTable.routes());
  }

  /**
   * The one throttler RateLimitGuard runs, named `default` so that a bare `@SkipThrottle()` opts a
   * route out: a window a minute long at the limit of the request's plan, counted against its
   * account or client IP (`accountOf`), skipped when the limit is switched off or the path is exempt.
   */
  throttlerOptions(): ThrottlerModuleOptions {
    return {
      skipIf: (context) => !this.counts(httpRequestOf<AuthenticatedRequest>(context)),
      getTracker: (req, context) => {
        const account = this.accountOf(context);
        if (account instanceof Promise) return account.then((found) => trackerOf(req as AuthenticatedRequest, found));
        return trackerOf(req as AuthenticatedRequest, account);
      },
      throttlers: [{ name: 'default', ttl: RATE_WINDOW_MS, limit: (context) => this.limitOf(context) }],
    };
  }

  /**
   * The account a request counts against: its credential's, else on pages that check their own
   * sign-in (`@CountedAsSignedIn`) the one signed in there; none counts it by client IP.
   */
  accountOf(context: ExecutionContext): AuthContext | undefined | Promise<AuthContext | undefined> {
    const req = httpRequestOf<AuthenticatedRequest>(context);
    if (req.auth) return req.auth;
    const signIn = this.pageSignIns.get(context);
    if (!signIn) return undefined;
    // Asked once per request, kept in its state: the limit and the tracker both need it.
    const state = requestStateOf(req);
    return (state.pageAccount ??= signIn.accountOf(context).then((found) => found ?? undefined));
  }

  private limitOf(context: ExecutionContext): number | Promise<number> {
    const account = this.accountOf(context);
    if (account instanceof Promise) return account.then((found) => this.limits[planOf(found)]);
    return this.limits[planOf(account)];
  }

  /** Whether the request counts at all: exempt paths are neither counted nor answered with the headers. */
  counts(req: AuthenticatedRequest): boolean {
    return this.enabled && !isExemptPath(req.path);
  }

  /** Writes the headers of a counted request; past the limit throws RateLimitExceededError (429 with Retry-After). */
  answer(req: AuthenticatedRequest, res: Response, quota: RateLimitQuota, window: FixedWindowRecord): void {
    requestStateOf(req).counted = true;
    setHeaders(res, rateLimitHeaders(quota, window));
    if (window.isBlocked) throw new RateLimitExceededError(window.timeToBlockExpire);
  }

  /** Counts a request refused before RateLimitGuard counted it, against its quota, once. */
  async countRefused(req: AuthenticatedRequest, res: Response): Promise<void> {
    const state = requestStateOf(req);
    if (!this.counts(req) || state.counted) return;
    state.counted = true;
    const quota = quotaOf(req, this.limits);
    this.answer(req, res, quota, await this.windows.increment(quota.bucket, RATE_WINDOW_MS, quota.limit));
  }
}
