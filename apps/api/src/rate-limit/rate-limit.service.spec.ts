import { ModuleRef, Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { Response } from 'express';
import { AuthContext, RateLimitExceededError } from '@app/common';
import { AppConfig } from '@app/config';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import type { FixedWindowRecord, FixedWindowStorage } from '../platform/redis/fixed-window.storage';
import type { RouteTargets } from '../platform/routing/per-route-memo';
import type { RouteTable } from '../platform/routing/route-table';
import { CountedAsSignedIn, PageSignIn } from './page-sign-in';
import { RateLimitService } from './rate-limit.service';

/** Pages that say who is signed in, as the console's guard does. */
class SignedInPages implements PageSignIn {
  constructor(public account: AuthContext | null) {}

  accountOf(): Promise<AuthContext | null> {
    return Promise.resolve(this.account);
  }
}

/** The app's routes, as RouteTable lists them. */
const routeTableOf = (...routes: RouteTargets[]): RouteTable => ({ routes: () => routes }) as unknown as RouteTable;

function setup(options: { enabled?: boolean; totalHits?: number } = {}) {
  const totalHits = options.totalHits ?? 1;
  const record: FixedWindowRecord = {
    totalHits,
    timeToExpire: 30,
    isBlocked: totalHits > 60,
    timeToBlockExpire: totalHits > 60 ? 30 : 0,
    endsAt: 1_700_000_030_000,
  };
  const windows = { increment: jest.fn().mockResolvedValue(record) };
  const config = Object.assign(new AppConfig(), { RATE_LIMIT_ENABLED: options.enabled === false ? 'false' : 'true' });
  const service = new RateLimitService(windows as unknown as FixedWindowStorage, config, new Reflector(), {} as ModuleRef, routeTableOf());
  const headers: Record<string, string> = {};
  const setHeader = jest.fn((name: string, value: string) => (headers[name] = value));
  return { service, windows, headers, setHeader, res: { setHeader } as unknown as Response };
}

function requestTo(path: string, auth?: Partial<AuthContext>): AuthenticatedRequest {
  return { path, auth, ip: '203.0.113.9', socket: {} } as unknown as AuthenticatedRequest;
}

describe('RateLimitService', () => {
  describe('countRefused', () => {
    it('counts a refused request against its bucket for one window and writes the headers', async () => {
      const { service, windows, headers, res } = setup({ totalHits: 1 });
      await service.countRefused(requestTo('/v2/auth/login'), res);
      expect(windows.increment).toHaveBeenCalledWith('ratelimit:ip:203.0.113.9', 60_000, 60);
      expect(headers).toEqual(expect.objectContaining({ 'X-RateLimit-Remaining': '59', RateLimit: '"free";r=59;t=30' }));
    });

    it('counts a request refused by a permission check against its account', async () => {
      const { service, windows, res } = setup();
      await service.countRefused(requestTo('/v2/webhooks', { userId: 'usr_1', plan: 'pro' }), res);
      expect(windows.increment).toHaveBeenCalledWith('ratelimit:account:usr_1', 60_000, 600);
    });

    it('counts a request once, however often it is refused, and not one the guard counted', async () => {
      const { service, windows, res } = setup();
      const req = requestTo('/v2/users/me');
      await service.countRefused(req, res);
      await service.countRefused(req, res);
      const counted = requestTo('/v2/users/me');
      service.answer(counted, res, { bucket: 'ratelimit:ip:203.0.113.9', policy: 'free', limit: 60 }, await windows.increment());
      await service.countRefused(counted, res);
      expect(windows.increment).toHaveBeenCalledTimes(2);
    });

    it('answers past the limit with the seconds left in the window', async () => {
      const { service, headers, res } = setup({ totalHits: 61 });
      const refusal = service.countRefused(requestTo('/v2/users/me'), res);
      await expect(refusal).rejects.toBeInstanceOf(RateLimitExceededError);
      await expect(refusal).rejects.toMatchObject({ headers: { 'Retry-After': '30' } });
      expect(headers).toEqual(expect.objectContaining({ 'X-RateLimit-Remaining': '0' }));
    });

    it('does not count exempt paths, nor anything when switched off', async () => {
      const on = setup();
      await on.service.countRefused(requestTo('/health/ready'), on.res);
      const off = setup({ enabled: false });
      await off.service.countRefused(requestTo('/v2/users/me'), off.res);
      expect(on.windows.increment).not.toHaveBeenCalled();
      expect(off.windows.increment).not.toHaveBeenCalled();
      expect(on.setHeader).not.toHaveBeenCalled();
    });
  });

  class Routes {
    api(this: void): void {}
  }

  @CountedAsSignedIn(SignedInPages)
  class PageRoutes {
    page(this: void): void {}
  }

  const contextOf = (req: AuthenticatedRequest, controller: typeof Routes | typeof PageRoutes = Routes) =>
    new ExecutionContextHost([req], controller, controller === Routes ? Routes.prototype.api : PageRoutes.prototype.page) as never;

  it("gives the throttler a one-minute window at the plan's limit, skipped where nothing counts", () => {
    const { service } = setup();
    const options = service.throttlerOptions();
    if (Array.isArray(options)) throw new Error('Expected module options with common settings.');
    const [throttler] = options.throttlers;
    expect(throttler).toMatchObject({ name: 'default', ttl: 60_000 });
    const limit = throttler.limit as (context: never) => number;
    expect(limit(contextOf(requestTo('/v2/users/me', { plan: 'enterprise' })))).toBe(6000);
    expect(limit(contextOf(requestTo('/v2/auth/login')))).toBe(60);
    expect(options.skipIf?.(contextOf(requestTo('/metrics')))).toBe(true);
    expect(options.skipIf?.(contextOf(requestTo('/v2/users/me')))).toBe(false);
  });

  it('counts a page that tells who is signed in against that account at its plan, asking once a request, and one without anyone by client IP', async () => {
    const { service } = setup();
    const options = service.throttlerOptions();
    if (Array.isArray(options)) throw new Error('Expected module options with common settings.');
    const limit = options.throttlers[0].limit as (context: never) => Promise<number>;
    const signedIn = { userId: 'usr_page', plan: 'pro' } as AuthContext;
    const pages = new SignedInPages(signedIn);
    const accountOf = jest.spyOn(pages, 'accountOf');
    const withPages = new RateLimitService(
      { increment: jest.fn() } as unknown as FixedWindowStorage,
      Object.assign(new AppConfig(), { RATE_LIMIT_ENABLED: 'true' }),
      new Reflector(),
      { get: () => pages } as unknown as ModuleRef,
      routeTableOf(),
    );
    const pageOptions = withPages.throttlerOptions();
    if (Array.isArray(pageOptions)) throw new Error('Expected module options with common settings.');
    const page = requestTo('/console/api-keys');
    const context = contextOf(page, PageRoutes);
    await expect((pageOptions.throttlers[0].limit as (context: never) => Promise<number>)(context)).resolves.toBe(600);
    await expect(pageOptions.getTracker?.(page, context)).resolves.toBe('account:usr_page');
    expect(accountOf).toHaveBeenCalledTimes(1);

    pages.account = null;
    const anonymous = requestTo('/console/sign-in');
    await expect(pageOptions.getTracker?.(anonymous, contextOf(anonymous, PageRoutes))).resolves.toBe('ip:203.0.113.9');
    // A route that does not name a PageSignIn is not asked: its request has no account.
    await expect(Promise.resolve(limit(contextOf(requestTo('/console/api-keys'))))).resolves.toBe(60);
  });

  it("finds every route's PageSignIn at start-up, and reads no decorator through the Reflector nor asks for the PageSignIn per request", async () => {
    const pages = new SignedInPages({ userId: 'usr_page', plan: 'pro' } as AuthContext);
    const reflector = new Reflector();
    const moduleRef = { get: jest.fn(() => pages) };
    const service = new RateLimitService(
      { increment: jest.fn() } as unknown as FixedWindowStorage,
      Object.assign(new AppConfig(), { RATE_LIMIT_ENABLED: 'true' }),
      reflector,
      moduleRef as unknown as ModuleRef,
      routeTableOf([PageRoutes.prototype.page, PageRoutes], [Routes.prototype.api, Routes]),
    );
    const reads = jest.spyOn(reflector, 'getAllAndOverride');
    service.onModuleInit();
    expect(reads.mock.calls.map(([, targets]) => targets)).toEqual([
      [PageRoutes.prototype.page, PageRoutes],
      [Routes.prototype.api, Routes],
    ]);
    expect(moduleRef.get).toHaveBeenCalledTimes(1);

    reads.mockClear();
    moduleRef.get.mockClear();
    await expect(service.accountOf(contextOf(requestTo('/console/api-keys'), PageRoutes))).resolves.toMatchObject({ userId: 'usr_page' });
    expect(service.accountOf(contextOf(requestTo('/v2/users/me')))).toBeUndefined();
    expect(reads).not.toHaveBeenCalled();
    expect(moduleRef.get).not.toHaveBeenCalled();
  });
});
