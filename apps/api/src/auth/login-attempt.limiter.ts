import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { RateLimitExceededError } from '@app/common';
import { FixedWindowStorage } from '../platform/redis/fixed-window.storage';

const MAX_FAILED_ATTEMPTS = 10;
const FAILED_ATTEMPTS_WINDOW_MS = 15 * 60_000;

/** Failed logins per email (docs/api.md#rate-limits): 10 in a 15-minute window, then 429 until it ends. */
@Injectable()
export class LoginAttemptLimiter {
  constructor(private readonly windows: FixedWindowStorage) {}

  /**
   * Runs a password check for `email` under the limit. The attempt is counted before the check,
   * so parallel guesses cannot overshoot; a success clears the count. Once 10 attempts have failed
   * in the window, every further one is 429 without a check, even with the right password.
   */
  async attempt<T>(email: string, check: () => Promise<T | null>): Promise<T | null> {
    const key = failuresKey(email);
    const window = await this.windows.increment(key, FAILED_ATTEMPTS_WINDOW_MS, MAX_FAILED_ATTEMPTS);
    if (window.isBlocked) throw new RateLimitExceededError(window.timeToBlockExpire);
    const result = await check();
    if (result !== null) await this.windows.reset(key);
    return result;
  }
}

/** Keyed by a hash of the normalized email: the same for any spelling, and no address in Redis. */
function failuresKey(email: string): string {
  const digest = createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');
  return `login-failures:${digest}`;
}
