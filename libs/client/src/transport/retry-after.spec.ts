import { retryAfterMs } from './retry-after';

describe('retryAfterMs', () => {
  const now = Date.parse('2025-11-21T09:30:00Z');

  it('reads delay-seconds and HTTP dates', () => {
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Fri, 21 Nov 2025 09:30:05 GMT', now)).toBe(5000);
  });

  it('never waits a negative time for a date already past', () => {
    expect(retryAfterMs('Fri, 21 Nov 2025 09:29:00 GMT', now)).toBe(0);
  });

  it('is undefined when absent or unreadable', () => {
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-3', now)).toBeUndefined();
    expect(retryAfterMs('1.5', now)).toBeUndefined();
  });
});
