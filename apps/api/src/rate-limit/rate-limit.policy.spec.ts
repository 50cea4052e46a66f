import type { AuthContext } from '@app/common';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import { isExemptPath, quotaOf, rateLimitHeaders } from './rate-limit.policy';

function requestFrom(ip: string, auth?: Partial<AuthContext>): AuthenticatedRequest {
  return { ip, auth, socket: {} } as unknown as AuthenticatedRequest;
}

describe('rate limit policy', () => {
  describe('quotaOf', () => {
    it.each([
      ['free', 60],
      ['pro', 600],
      ['enterprise', 6000],
    ] as const)('gives a %s account its own bucket at %i a window', (plan, limit) => {
      expect(quotaOf(requestFrom('203.0.113.9', { userId: 'usr_1', plan }))).toEqual({
        bucket: 'ratelimit:account:usr_1',
        policy: plan,
        limit,
      });
    });

    it('keys an unauthenticated request by client IP at the free limit', () => {
      expect(quotaOf(requestFrom('203.0.113.9'))).toEqual({ bucket: 'ratelimit:ip:203.0.113.9', policy: 'free', limit: 60 });
    });

    it('counts an IPv4-mapped address as its IPv4 address, and an IPv6 address by its /64', () => {
      expect(quotaOf(requestFrom('::ffff:203.0.113.9')).bucket).toBe('ratelimit:ip:203.0.113.9');
      expect(quotaOf(requestFrom('2001:db8:1:2:aaaa::1')).bucket).toBe(quotaOf(requestFrom('2001:db8:1:2:bbbb::2')).bucket);
    });
  });

  describe('rateLimitHeaders', () => {
    const quota = { bucket: 'ratelimit:account:usr_1', policy: 'pro' as const, limit: 600 };

    it('announces the limit, what remains, the end of the window and the policy', () => {
      const window = { totalHits: 3, timeToExpire: 42, isBlocked: false, timeToBlockExpire: 0, endsAt: 1_700_000_041_500 };
      expect(rateLimitHeaders(quota, window)).toEqual({
        'X-RateLimit-Limit': '600',
        'X-RateLimit-Remaining': '597',
        'X-RateLimit-Reset': '1700000042',
        'RateLimit-Policy': '"pro";q=600;w=60',
        RateLimit: '"pro";r=597;t=42',
      });
    });

    it('never announces a negative remainder', () => {
      const window = { totalHits: 605, timeToExpire: 5, isBlocked: true, timeToBlockExpire: 5, endsAt: 1_700_000_000_000 };
      expect(rateLimitHeaders(quota, window)).toMatchObject({ 'X-RateLimit-Remaining': '0', RateLimit: '"pro";r=0;t=5' });
    });
  });

  describe('isExemptPath', () => {
    it.each(['/health/live', '/health/ready', '/metrics', '/docs', '/docs/reference.js', '/openapi.json'])(
      'exempts %s',
      (path) => expect(isExemptPath(path)).toBe(true),
    );

    it.each(['/v2/users/me', '/v2/auth/login', '/metrics-extra', '/v2/resources/health', '/healthz'])('limits %s', (path) =>
      expect(isExemptPath(path)).toBe(false),
    );
  });
});
