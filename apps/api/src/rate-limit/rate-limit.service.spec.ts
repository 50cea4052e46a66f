import type { Response } from 'express';
import { AuthContext, AuthenticationRequiredError, RateLimitExceededError } from '@app/common';
import type { AppConfig } from '@app/config';
import type Redis from 'ioredis';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import { FixedWindowRecord, FixedWindowStorage, REVOKED } from './fixed-window.storage';
import { RateLimitService } from './rate-limit.service';
import { TokenRevocationService } from '../auth/token-revocation.service';

function setup(options: { enabled?: boolean; totalHits?: number; revoked?: boolean } = {}) {
  const totalHits = options.totalHits ?? 1;
  const record: FixedWindowRecord = {
    totalHits,
    timeToExpire: 30,
    isBlocked: totalHits > 60,
    timeToBlockExpire: totalHits > 60 ? 30 : 0,
    endsAt: 1_700_000_030_000,
  };
  const windows = { hit: jest.fn().mockResolvedValue(options.revoked ? REVOKED : record) };
  const config = { RATE_LIMIT_ENABLED: options.enabled === false ? 'false' : 'true' } as AppConfig;
  const revocations = new TokenRevocationService({} as Redis);
  const service = new RateLimitService(windows as unknown as FixedWindowStorage, revocations, config);
  const set = jest.fn();
  return { service, windows, set, res: { set } as unknown as Response };
}

function requestTo(path: string): AuthenticatedRequest {
  return { path, ip: '203.0.113.9', socket: {} } as unknown as AuthenticatedRequest;
}

describe('RateLimitService', () => {
  it('counts a request against its bucket for one window and writes the headers', async () => {
    const { service, windows, set, res } = setup({ totalHits: 1 });
    await service.charge(requestTo('/v2/auth/login'), res);
    expect(windows.hit).toHaveBeenCalledWith('ratelimit:ip:203.0.113.9', 60_000, 60, []);
    expect(set).toHaveBeenCalledWith(expect.objectContaining({ 'X-RateLimit-Remaining': '59', RateLimit: '"free";r=59;t=30' }));
  });

  it("checks a token's revocation marks in the same call and refuses a revoked token as anonymous", async () => {
    const { service, windows, res } = setup({ revoked: true });
    const auth = { userId: 'usr_1', plan: 'free', credential: 'jwt', credentialId: 'jti_1', familyId: 'fam_1' } as AuthContext;
    const req = { ...requestTo('/v2/users/me'), auth } as AuthenticatedRequest;
    await expect(service.charge(req, res)).rejects.toBeInstanceOf(AuthenticationRequiredError);
    expect(windows.hit).toHaveBeenCalledWith('ratelimit:account:usr_1', 60_000, 60, ['revoked:jti:jti_1', 'revoked:fam:fam_1']);
    expect(req.auth).toBeUndefined();
    windows.hit.mockResolvedValue({ totalHits: 1, timeToExpire: 30, isBlocked: false, timeToBlockExpire: 0, endsAt: 0 });
    await service.charge(req, res);
    expect(windows.hit).toHaveBeenLastCalledWith('ratelimit:ip:203.0.113.9', 60_000, 60, []);
  });

  it('counts a request once, however often it is charged', async () => {
    const { service, windows, res } = setup();
    const req = requestTo('/v2/users/me');
    await service.charge(req, res);
    await service.charge(req, res);
    expect(windows.hit).toHaveBeenCalledTimes(1);
  });

  it('refuses a request past the limit with the seconds left in the window', async () => {
    const { service, set, res } = setup({ totalHits: 61 });
    const refusal = service.charge(requestTo('/v2/users/me'), res);
    await expect(refusal).rejects.toBeInstanceOf(RateLimitExceededError);
    await expect(refusal).rejects.toMatchObject({ headers: { 'Retry-After': '30' } });
    expect(set).toHaveBeenCalledWith(expect.objectContaining({ 'X-RateLimit-Remaining': '0' }));
  });

  it('does not count exempt paths', async () => {
    const { service, windows, set, res } = setup();
    await service.charge(requestTo('/health/ready'), res);
    expect(windows.hit).not.toHaveBeenCalled();
    expect(set).not.toHaveBeenCalled();
  });

  it('does nothing when switched off', async () => {
    const { service, windows, res } = setup({ enabled: false });
    await service.charge(requestTo('/v2/users/me'), res);
    expect(windows.hit).not.toHaveBeenCalled();
  });
});
