import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  Resolvable,
  ThrottlerGenerateKeyFunction,
  ThrottlerGetTrackerFunction,
  ThrottlerGuard,
  ThrottlerModuleOptions,
  ThrottlerOptions,
  ThrottlerRequest,
} from '@nestjs/throttler';
import {
  THROTTLER_BLOCK_DURATION,
  THROTTLER_KEY_GENERATOR,
  THROTTLER_LIMIT,
  THROTTLER_SKIP,
  THROTTLER_TRACKER,
  THROTTLER_TTL,
} from '@nestjs/throttler/dist/throttler.constants';
import { CredentialRevocationService } from '../auth/credential-revocation.service';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import { FixedWindowStorage } from '../platform/redis/fixed-window.storage';
import { httpRequestOf, httpResponseOf } from '../platform/request/http-arguments';
import { PerRouteMemo, RouteTargets } from '../platform/routing/per-route-memo';
import { RouteTable } from '../platform/routing/route-table';
import { bucketOf, planOf } from './rate-limit.policy';
import { RateLimitService } from './rate-limit.service';

/** One throttler as it applies to one route: its decorators read, its values resolved where they do not depend on the request. */
interface RouteThrottler {
  throttler: ThrottlerOptions;
  skipped: boolean;
  limit: Resolvable<number>;
  ttl: Resolvable<number>;
  blockDuration: Resolvable<number> | undefined;
  getTracker: ThrottlerGetTrackerFunction;
  generateKey: ThrottlerGenerateKeyFunction;
}

/** A throttler value for this request: a constant as it is, else the function's answer. */
const resolve = (value: Resolvable<number>, context: ExecutionContext): number | Promise<number> =>
  typeof value === 'function' ? value(context) : value;

/**
 * Counts every routed request, through @nestjs/throttler: its one throttler
 * (RateLimitService.throttlerOptions) and `@SkipThrottle()` decide whether and at which limit,
 * FixedWindowStorage counts. It is a global guard registered after AuthModule's authentication
 * and scope guards, so the account is known: an authenticated request counts against the account
 * at its plan's limit, as is a page whose controller tells who is signed in (`@CountedAsSignedIn`),
 * and any other `@Public()` one against its client IP. Requests refused before it
 * (failed authentication or scope check, unknown route) are counted by RateLimitedErrorFilter
 * instead, so that none goes uncounted and none is counted twice.
 *
 * The throttler's guard reads six decorators through the Reflector for every request; here they
 * are read for every route of the app's controllers when the guard starts (`PerRouteMemo`), so a
 * request only looks its route up, and the rest runs as the guard's own `handleRequest`.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly routes = new PerRouteMemo((targets) => this.throttlersOf(targets));

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly windows: FixedWindowStorage,
    reflector: Reflector,
    private readonly rateLimits: RateLimitService,
    private readonly revocations: CredentialRevocationService,
    private readonly routeTable: RouteTable,
  ) {
    super(options, windows, reflector);
  }

  /** The throttler's own start-up (its throttlers and common options), then every route's throttlers resolved. */
  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    this.routes.prepare(this.routeTable.routes());
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    for (const route of this.routes.get(context)) {
      const skipIf = route.throttler.skipIf ?? this.commonOptions.skipIf;
      if (route.skipped || skipIf?.(context)) continue;
      // Only a promise is awaited: an await of a plain value still costs a turn of the microtask queue.
      const ttl = resolve(route.ttl, context);
      const limit = resolve(route.limit, context);
      const ttlMs = typeof ttl === 'number' ? ttl : await ttl;
      await this.handleRequest({
        context,
        throttler: route.throttler,
        limit: typeof limit === 'number' ? limit : await limit,
        ttl: ttlMs,
        blockDuration: route.blockDuration === undefined ? ttlMs : await resolve(route.blockDuration, context),
        getTracker: route.getTracker,
        generateKey: route.generateKey,
      });
    }
    return true;
  }

  protected override generateKey(_context: ExecutionContext, tracker: string): string {
    return bucketOf(tracker);
  }

  /**
   * Counts the request unless, as the same script call finds, its credential was revoked: that
   * request is not the account's to pay for (RevocationCheckGuard refuses it next, and the error
   * filter counts it against its client IP, as any failed authentication). Then writes the
   * headers, or refuses the request past the limit (429 with Retry-After).
   */
  protected override async handleRequest({ context, limit, ttl, throttler, getTracker, generateKey }: ThrottlerRequest): Promise<boolean> {
    const req = httpRequestOf<AuthenticatedRequest>(context);
    const tracker = getTracker(req, context);
    const key = generateKey(context, typeof tracker === 'string' ? tracker : await tracker, throttler.name ?? 'default');
    const found = this.rateLimits.accountOf(context);
    const account = found instanceof Promise ? await found : found;
    const marks = this.revocations.marksToCheck(req);
    const counted = await this.windows.countUnlessMarked({ key, ttl, limit }, marks);
    if (marks.length > 0) this.revocations.record(req, counted.marked);
    if (counted.marked) return true;
    this.rateLimits.answer(req, httpResponseOf(context), { bucket: key, policy: planOf(account), limit }, counted.window);
    return true;
  }

  /** The throttlers that apply to a route, with its `@SkipThrottle()`, `@Throttle()` and tracker decorators read. */
  private throttlersOf(targets: RouteTargets): RouteThrottler[] {
    const read = <T>(key: string, name: string): T | undefined => this.reflector.getAllAndOverride<T | undefined>(key + name, targets);
    return this.throttlers.map((throttler) => {
      const name = throttler.name ?? 'default';
      return {
        throttler,
        skipped: read<boolean>(THROTTLER_SKIP, name) === true,
        limit: read<Resolvable<number>>(THROTTLER_LIMIT, name) ?? throttler.limit,
        ttl: read<Resolvable<number>>(THROTTLER_TTL, name) ?? throttler.ttl,
        blockDuration: read<Resolvable<number>>(THROTTLER_BLOCK_DURATION, name) ?? throttler.blockDuration,
        getTracker: read<ThrottlerGetTrackerFunction>(THROTTLER_TRACKER, name) ?? throttler.getTracker ?? this.commonOptions.getTracker ?? this.getTracker.bind(this),
        generateKey:
          read<ThrottlerGenerateKeyFunction>(THROTTLER_KEY_GENERATOR, name) ?? throttler.generateKey ?? this.commonOptions.generateKey ?? this.generateKey.bind(this),
      };
    });
  }
}
