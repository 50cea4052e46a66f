import { normalizeIp } from '@nestjs/throttler';
import type { AuthContext, Plan } from '@app/common';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import type { FixedWindowRecord } from '../platform/redis/fixed-window.storage';

export const RATE_WINDOW_MS = 60_000;

/** Requests per window for each plan (docs/api.md#rate-limits); `RATE_LIMIT_PLAN_LIMITS` may tune them. */
export const PLAN_LIMITS: Record<Plan, number> = { free: 60, pro: 600, enterprise: 6000 };

export type PlanLimits = Record<Plan, number>;

/** Health probes, metrics and the API description are never limited. */
const EXEMPT_PATH = /^(?:\/v2)?\/(?:health(?:\/.*)?|metrics|docs(?:\/.*)?|openapi\.json)$/;

export interface RateLimitQuota {
  /** Redis key of the counter. */
  bucket: string;
  /** Name announced in the RateLimit-Policy and RateLimit headers. */
  policy: Plan;
  limit: number;
}

export function isExemptPath(path: string): boolean {
  return EXEMPT_PATH.test(path);
}

/** Whom a request counts against: its account (every credential of one user shares it), else its client IP. */
export function trackerOf(req: AuthenticatedRequest, account: AuthContext | undefined = req.auth): string {
  if (account) return `account:${account.userId}`;
  return `ip:${normalizeIp(req.ip ?? req.socket.remoteAddress ?? 'unknown')}`;
}

/** Redis key of a tracker's counter: one per tracker, whatever the route. */
export function bucketOf(tracker: string): string {
  return `ratelimit:${tracker}`;
}

/**
 * The plan whose limit applies: the account's, or for any other request the free limit, announced
 * as the `free` policy since that is the limit that applies.
 */
export function planOf(account: AuthContext | undefined): Plan {
  return account?.plan ?? 'free';
}

export function quotaOf(req: AuthenticatedRequest, limits: PlanLimits = PLAN_LIMITS): RateLimitQuota {
  const plan = planOf(req.auth);
  return { bucket: bucketOf(trackerOf(req)), policy: plan, limit: limits[plan] };
}

/** The X-RateLimit-* trio and the IETF draft RateLimit-Policy / RateLimit pair. */
export function rateLimitHeaders(quota: RateLimitQuota, window: FixedWindowRecord): Record<string, string> {
  const remaining = Math.max(0, quota.limit - window.totalHits);
  return {
    'X-RateLimit-Limit': String(quota.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(Math.ceil(window.endsAt / 1000)),
    'RateLimit-Policy': `"${quota.policy}";q=${quota.limit};w=${RATE_WINDOW_MS / 1000}`,
    RateLimit: `"${quota.policy}";r=${remaining};t=${window.timeToExpire}`,
  };
}
