import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { SkipThrottle, ThrottlerStorage } from '@nestjs/throttler';
import { RATE_LIMIT_THROTTLERS, RateLimitGuard } from './rate-limit.guard';
import type { RateLimitService } from './rate-limit.service';

class Routes {
  limited(this: void): void {}

  @SkipThrottle()
  skipped(this: void): void {}
}

async function setup() {
  const rateLimits = { charge: jest.fn().mockResolvedValue(undefined) };
  const guard = new RateLimitGuard(RATE_LIMIT_THROTTLERS, {} as ThrottlerStorage, new Reflector(), rateLimits as unknown as RateLimitService);
  await guard.onModuleInit();
  const req = { path: '/v2/users/me' };
  const res = {};
  const contextFor = (handler: keyof Routes): ExecutionContext =>
    ({
      getHandler: () => Routes.prototype[handler],
      getClass: () => Routes,
      switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }),
    }) as unknown as ExecutionContext;
  return { guard, rateLimits, contextFor, req, res };
}

describe('RateLimitGuard', () => {
  it('charges each request once to RateLimitService', async () => {
    const { guard, rateLimits, contextFor, req, res } = await setup();
    await expect(guard.canActivate(contextFor('limited'))).resolves.toBe(true);
    expect(rateLimits.charge).toHaveBeenCalledTimes(1);
    expect(rateLimits.charge).toHaveBeenCalledWith(req, res);
  });

  it('lets @SkipThrottle() routes through uncounted', async () => {
    const { guard, rateLimits, contextFor } = await setup();
    await expect(guard.canActivate(contextFor('skipped'))).resolves.toBe(true);
    expect(rateLimits.charge).not.toHaveBeenCalled();
  });
});

describe('RateLimitGuard on a controller skipped as a whole', () => {
  @SkipThrottle()
  class SkippedRoutes extends Routes {}

  it('reads the skip per controller, also for a handler the skipped one inherits', async () => {
    const { guard, rateLimits, contextFor } = await setup();
    const inherited = { ...contextFor('limited'), getClass: () => SkippedRoutes } as ExecutionContext;
    await expect(guard.canActivate(inherited)).resolves.toBe(true);
    expect(rateLimits.charge).not.toHaveBeenCalled();
    await expect(guard.canActivate(contextFor('limited'))).resolves.toBe(true);
    expect(rateLimits.charge).toHaveBeenCalledTimes(1);
  });
});
