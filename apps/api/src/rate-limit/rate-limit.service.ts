import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '@app/config';
import { RateLimitExceededError } from '@app/common';
import type { AuthenticatedRequest } from '../common/decorators/auth.decorator';
import { FixedWindowStorage } from './fixed-window.storage';
import { isExemptPath, PlanLimits, quotaOf, RATE_WINDOW_MS, rateLimitHeaders } from './rate-limit.policy';

/** The per-plan request limit: counts requests in Redis and writes the rate-limit headers. */
@Injectable()
export class RateLimitService {
  private readonly enabled: boolean;
  private readonly limits: PlanLimits;
  /** Requests already counted: the guard and the error filter may both see one request. */
  private readonly charged = new WeakSet<AuthenticatedRequest>();

  constructor(
    private readonly windows: FixedWindowStorage,
    config: AppConfig,
  ) {
    this.enabled = config.RATE_LIMIT_ENABLED === 'true';
    this.limits = config.planLimits;
  }

  /**
   * Counts the request, once, against its quota and writes the headers; past the limit throws
   * RateLimitExceededError (429 with Retry-After). Exempt paths are neither counted nor marked.
   */
  async charge(req: AuthenticatedRequest, res: Response): Promise<void> {
    if (!this.enabled || this.charged.has(req) || isExemptPath(req.path)) return;
    this.charged.add(req);
    const quota = quotaOf(req, this.limits);
    const window = await this.windows.increment(quota.bucket, RATE_WINDOW_MS, quota.limit);
    res.set(rateLimitHeaders(quota, window));
    if (window.isBlocked) throw new RateLimitExceededError(window.timeToBlockExpire);
  }
}
