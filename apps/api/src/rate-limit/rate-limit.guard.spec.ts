import { randomBytes } from 'node:crypto';
import { ExecutionContext, Get } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef, Reflector } from '@nestjs/core';
import { SkipThrottle } from '@nestjs/throttler';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type Redis from 'ioredis';
import { AuthContext, RateLimitExceededError } from '@app/common';
import { AppConfig } from '@app/config';
import { connectRunRedis } from '@app/testing';
import { CredentialRevocationService } from '../auth/credential-revocation.service';
import type { CredentialStrategy } from '../auth/credential';
import { CredentialRegistry } from '../auth/credential-registry';
import { accessTokenMark, JWT_CREDENTIAL } from '../auth/strategies/jwt.credential';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import { FixedWindowStorage } from '../platform/redis/fixed-window.storage';
import { RouteTable } from '../platform/routing/route-table';
import { RedisPipelineBatch } from '../platform/redis/redis-pipeline-batch';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimitService } from './rate-limit.service';

class Routes {
  @Get('limited')
  limited(this: void): void {}

  @Get('skipped')
  @SkipThrottle()
  skipped(this: void): void {}
}

@SkipThrottle()
class SkippedRoutes extends Routes {}

/** Against the test run's Redis, with the app's storage, revocation check and throttler options. */
describe('RateLimitGuard', () => {
  let redis: Redis;
  let windows: FixedWindowStorage;
  let revocations: CredentialRevocationService;

  beforeAll(async () => {
    redis = connectRunRedis();
    // Connected before any test counts the commands sent.
    await redis.ping();
    const turn = new RedisPipelineBatch(redis);
    windows = new FixedWindowStorage(redis, turn);
    const registry = new CredentialRegistry({} as DiscoveryService);
    registry.register({ credential: JWT_CREDENTIAL } as CredentialStrategy);
    revocations = new CredentialRevocationService(redis, turn, registry);
  });
  afterAll(async () => {
    await redis.quit();
  });
  afterEach(() => jest.restoreAllMocks());

  /** The guard as the app builds it, over the two controllers above; `beforeInit` sees it before its start-up. */
  async function setup(enabled = true, beforeInit: (reflector: Reflector) => void = () => undefined) {
    const config = Object.assign(new AppConfig(), { RATE_LIMIT_ENABLED: String(enabled) });
    const discovery = { getControllers: () => [{ metatype: Routes }, { metatype: SkippedRoutes }] } as unknown as DiscoveryService;
    const routeTable = new RouteTable(discovery, new MetadataScanner());
    const rateLimits = new RateLimitService(windows, config, new Reflector(), {} as ModuleRef, routeTable);
    const reflector = new Reflector();
    const guard = new RateLimitGuard(rateLimits.throttlerOptions(), windows, reflector, rateLimits, revocations, routeTable);
    beforeInit(reflector);
    await guard.onModuleInit();
    return { guard, rateLimits, reflector };
  }

  function request(auth?: AuthContext, path = '/v2/users/me') {
    const req = { path, auth, ip: `10.9.${randomBytes(1)[0]}.${randomBytes(1)[0]}`, socket: {} } as unknown as AuthenticatedRequest;
    const headers: Record<string, string> = {};
    const res = { setHeader: (name: string, value: string) => (headers[name] = value) };
    const contextFor = (handler: keyof Routes = 'limited', controller: typeof Routes = Routes): ExecutionContext =>
      new ExecutionContextHost([req, res], controller, Routes.prototype[handler]);
    return { req, headers, contextFor };
  }

  const caller = (plan: AuthContext['plan'] = 'pro'): AuthContext => ({
    userId: `usr_${randomBytes(6).toString('hex')}`,
    role: 'user',
    plan,
    credential: 'jwt',
    scopes: [],
    credentialId: randomBytes(8).toString('hex'),
    familyId: randomBytes(8).toString('hex'),
  });

  it("counts an authenticated request against its account at its plan's limit, with its revocation check, in one round trip", async () => {
    const { guard } = await setup();
    const auth = caller('pro');
    const { req, headers, contextFor } = request(auth);
    const commands = jest.spyOn(redis, 'sendCommand');
    await expect(guard.canActivate(contextFor())).resolves.toBe(true);
    // One script call: EVAL the first time on a connection, EVALSHA after.
    expect(commands.mock.calls.map(([command]) => command.name)).toEqual([expect.stringMatching(/^eval(sha)?$/)]);
    expect(headers).toMatchObject({ 'X-RateLimit-Limit': '600', 'X-RateLimit-Remaining': '599', 'RateLimit-Policy': '"pro";q=600;w=60' });
    expect(Number(await redis.get(`ratelimit:account:${auth.userId}`))).toBe(1);
    expect(revocations.isRevoked(req)).toBe(false);
  });

  it('counts an anonymous request against its client IP at the free limit', async () => {
    const { guard } = await setup();
    const { req, headers, contextFor } = request(undefined, '/v2/auth/login');
    await guard.canActivate(contextFor());
    expect(headers).toMatchObject({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59' });
    expect(Number(await redis.get(`ratelimit:ip:${req.ip}`))).toBe(1);
  });

  it('refuses a request past the limit with 429, Retry-After and the headers', async () => {
    const { guard } = await setup();
    const auth = caller('free');
    await redis.set(`ratelimit:account:${auth.userId}`, '60', 'PX', 30_000);
    const { headers, contextFor } = request(auth);
    const refusal = guard.canActivate(contextFor());
    await expect(refusal).rejects.toBeInstanceOf(RateLimitExceededError);
    await expect(refusal).rejects.toMatchObject({ headers: { 'Retry-After': expect.stringMatching(/^(29|30)$/) } });
    expect(headers).toMatchObject({ 'X-RateLimit-Remaining': '0' });
  });

  it("counts a revoked credential's request once, against its client IP and never its account, the check in the count's round trip", async () => {
    const { guard, rateLimits } = await setup();
    const auth = caller();
    await revocations.revoke(accessTokenMark(auth.credentialId), 60);
    const { req, headers, contextFor } = request(auth);
    const commands = jest.spyOn(redis, 'sendCommand');
    await expect(guard.canActivate(contextFor())).resolves.toBe(true);
    // One script call: EVAL the first time on a connection, EVALSHA after.
    expect(commands.mock.calls.map(([command]) => command.name)).toEqual([expect.stringMatching(/^eval(sha)?$/)]);
    expect(headers).toEqual({});
    expect(await redis.exists(`ratelimit:account:${auth.userId}`)).toBe(0);
    expect(revocations.isRevoked(req)).toBe(true);

    req.auth = undefined;
    await rateLimits.countRefused(req, { setHeader: (name: string, value: string) => (headers[name] = value) } as never);
    expect(headers).toMatchObject({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59', 'RateLimit-Policy': '"free";q=60;w=60' });
    expect(Number(await redis.get(`ratelimit:ip:${req.ip}`))).toBe(1);
    await rateLimits.countRefused(req, { setHeader: () => undefined } as never);
    expect(Number(await redis.get(`ratelimit:ip:${req.ip}`))).toBe(1);
    expect(await redis.exists(`ratelimit:account:${auth.userId}`)).toBe(0);
  });

  it("neither counts nor refuses a revoked credential's request against an account past its limit", async () => {
    const { guard } = await setup();
    const auth = caller('free');
    await revocations.revoke(accessTokenMark(auth.credentialId), 60);
    await redis.set(`ratelimit:account:${auth.userId}`, '60', 'PX', 30_000);
    const { req, contextFor } = request(auth);
    await expect(guard.canActivate(contextFor())).resolves.toBe(true);
    expect(await redis.get(`ratelimit:account:${auth.userId}`)).toBe('60');
    expect(revocations.isRevoked(req)).toBe(true);
  });

  it('lets @SkipThrottle() routes and controllers through uncounted, and reads the skip per controller', async () => {
    const { guard } = await setup();
    const auth = caller();
    const { contextFor } = request(auth);
    await expect(guard.canActivate(contextFor('skipped'))).resolves.toBe(true);
    await expect(guard.canActivate(contextFor('limited', SkippedRoutes))).resolves.toBe(true);
    expect(await redis.exists(`ratelimit:account:${auth.userId}`)).toBe(0);
    await guard.canActivate(contextFor('limited'));
    expect(await redis.get(`ratelimit:account:${auth.userId}`)).toBe('1');
  });

  it("resolves every route's throttlers at start-up, and reads no decorator through the Reflector per request", async () => {
    let reads: jest.SpyInstance | undefined;
    const { guard } = await setup(true, (reflector) => {
      reads = jest.spyOn(reflector, 'getAllAndOverride');
    });
    const readTargets = (reads?.mock.calls ?? []).map(([, targets]) => targets as unknown[]);
    for (const controller of [Routes, SkippedRoutes]) {
      for (const handler of [Routes.prototype.limited, Routes.prototype.skipped]) {
        expect(readTargets).toContainEqual([handler, controller]);
      }
    }
    expect(reads?.mock.calls.length).toBeGreaterThan(0);

    reads?.mockClear();
    const auth = caller();
    await guard.canActivate(request(auth).contextFor());
    await guard.canActivate(request(auth).contextFor());
    await guard.canActivate(request(auth).contextFor('skipped'));
    await guard.canActivate(request(auth).contextFor('limited', SkippedRoutes));
    expect(reads).not.toHaveBeenCalled();
    expect(await redis.get(`ratelimit:account:${auth.userId}`)).toBe('2');
  });

  it('counts nothing on exempt paths, nor when switched off', async () => {
    const auth = caller();
    const on = await setup(true);
    const off = await setup(false);
    await on.guard.canActivate(request(auth, '/health/ready').contextFor());
    await off.guard.canActivate(request(auth).contextFor());
    expect(await redis.exists(`ratelimit:account:${auth.userId}`)).toBe(0);
  });
});
