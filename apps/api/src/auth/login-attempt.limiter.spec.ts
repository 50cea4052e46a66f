import { RateLimitExceededError } from '@app/common';
import type { FixedWindowRecord, FixedWindowStorage } from '../platform/redis/fixed-window.storage';
import { LoginAttemptLimiter } from './login-attempt.limiter';

/** Counts per key in memory; a window never ends within a test. */
function setup() {
  const counts = new Map<string, number>();
  const windows = {
    increment: jest.fn((key: string, _ttl: number, limit: number): Promise<FixedWindowRecord> => {
      const totalHits = (counts.get(key) ?? 0) + 1;
      counts.set(key, totalHits);
      const isBlocked = totalHits > limit;
      return Promise.resolve({ totalHits, timeToExpire: 900, isBlocked, timeToBlockExpire: isBlocked ? 900 : 0, endsAt: 0 });
    }),
    reset: jest.fn((key: string) => Promise.resolve(void counts.delete(key))),
  };
  return { limiter: new LoginAttemptLimiter(windows as unknown as FixedWindowStorage), windows };
}

const wrong = (): Promise<string | null> => Promise.resolve(null);
const right = (): Promise<string | null> => Promise.resolve('usr_1');

describe('LoginAttemptLimiter', () => {
  it('counts each attempt in a 15-minute window of at most 10', async () => {
    const { limiter, windows } = setup();
    await limiter.attempt('ada@example.com', wrong);
    expect(windows.increment).toHaveBeenCalledWith(expect.stringMatching(/^login-failures:/), 15 * 60_000, 10);
  });

  it('refuses the 11th attempt after 10 failures without checking, even a right password', async () => {
    const { limiter } = setup();
    for (let i = 0; i < 10; i += 1) await expect(limiter.attempt('ada@example.com', wrong)).resolves.toBeNull();
    const check = jest.fn(right);
    const refusal = limiter.attempt('ada@example.com', check);
    await expect(refusal).rejects.toBeInstanceOf(RateLimitExceededError);
    await expect(refusal).rejects.toMatchObject({ headers: { 'Retry-After': '900' } });
    expect(check).not.toHaveBeenCalled();
  });

  it('clears the count on a success', async () => {
    const { limiter, windows } = setup();
    for (let i = 0; i < 9; i += 1) await limiter.attempt('ada@example.com', wrong);
    await expect(limiter.attempt('ada@example.com', right)).resolves.toBe('usr_1');
    expect(windows.reset).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 10; i += 1) await expect(limiter.attempt('ada@example.com', wrong)).resolves.toBeNull();
  });

  it('counts every spelling of an email together, and other emails apart', async () => {
    const { limiter } = setup();
    for (let i = 0; i < 10; i += 1) await limiter.attempt(i % 2 ? 'Ada@Example.com' : ' ada@example.com', wrong);
    await expect(limiter.attempt('ADA@EXAMPLE.COM', right)).rejects.toBeInstanceOf(RateLimitExceededError);
    await expect(limiter.attempt('bob@example.com', right)).resolves.toBe('usr_1');
  });

  it('keeps no address in the key', async () => {
    const { limiter, windows } = setup();
    await limiter.attempt('ada@example.com', wrong);
    expect(windows.increment.mock.calls[0][0]).not.toContain('ada');
  });
});
