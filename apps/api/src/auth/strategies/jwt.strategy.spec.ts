import type { ExecutionContext } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { sign } from 'jsonwebtoken';
import { Strategy } from 'passport-jwt';
import { AppConfig } from '@app/config';
import { AuthenticationRequiredError } from '@app/common';
import type { AuthenticatedRequest } from '../../platform/decorators/auth.decorator';
import type { UserRepository } from '../user.repository';
import { AccountDirectory } from '../account-directory.service';
import { AuthContextFactory } from '../auth-context.factory';
import { CredentialRegistry } from '../credential-registry';
import { AuthenticationGuard } from '../guards/authentication.guard';
import { RouteAccessReader } from '../route-access';
import type { RouteTable } from '../../platform/routing/route-table';
import { JWT_ISSUER } from '../token.service';
import { JwtStrategy } from './jwt.strategy';

const SECRET = 'unit-test-secret-0123456789abcdef0123456789';
const NOW = Date.UTC(2026, 0, 1);


function token(claims: { typ?: string; exp?: number }, secret = SECRET): string {
  const iat = Math.floor(Date.now() / 1000);
  return sign(
    { typ: 'access', fam: 'rtk_family', iat, exp: iat + 900, ...claims },
    secret,
    { algorithm: 'HS256', issuer: JWT_ISSUER, audience: 'rms:test', subject: 'usr_1', jwtid: 'jti_1' },
  );
}

class Routes {
  me(this: void): void {}
}

function contextOf(bearer: string): { context: ExecutionContext; req: AuthenticatedRequest } {
  const req = { headers: { authorization: `Bearer ${bearer}` }, query: {} } as unknown as AuthenticatedRequest;
  return { req, context: new ExecutionContextHost([req], Routes, Routes.prototype.me) };
}

/** No route listed at start-up: each test's routes have their access rules read on their first request. */
const ROUTES_SEEN_ON_THEIR_FIRST_REQUEST = { routes: () => [] } as unknown as RouteTable;

/** Through the authentication guard, as requests reach the strategy. */
describe('JwtStrategy and its verified-token cache', () => {
  let guard: AuthenticationGuard;
  let accounts: AccountDirectory;
  let verifications: jest.SpyInstance;
  const users = { findAccount: jest.fn() };

  beforeEach(() => {
    jest.useFakeTimers({ now: NOW });
    users.findAccount.mockReset().mockResolvedValue({ role: 'user', plan: 'free' });
    accounts = new AccountDirectory(users as unknown as UserRepository);
    const config = Object.assign(new AppConfig(), { APP_ENV: 'test', JWT_SECRET: SECRET });
    const registry = new CredentialRegistry({} as DiscoveryService);
    registry.register(new JwtStrategy(config));
    guard = new AuthenticationGuard(new RouteAccessReader(new Reflector(), ROUTES_SEEN_ON_THEIR_FIRST_REQUEST), registry, new AuthContextFactory(accounts, registry));
    // passport-jwt's typings omit the static verifier it calls, which it documents for tests.
    verifications = jest.spyOn(Strategy as unknown as { JwtVerifier: (...args: unknown[]) => void }, 'JwtVerifier');
  });

  afterEach(() => {
    verifications.mockRestore();
    jest.useRealTimers();
  });

  async function authenticate(bearer: string): Promise<AuthenticatedRequest> {
    const { context, req } = contextOf(bearer);
    await guard.canActivate(context);
    return req;
  }

  it('verifies a token once, then answers its later requests from the cache with the same caller', async () => {
    const access = token({});
    const first = await authenticate(access);
    const second = await authenticate(access);

    expect(verifications).toHaveBeenCalledTimes(1);
    expect(second.auth).toEqual(first.auth);
    expect(second.auth).toEqual(expect.objectContaining({ userId: 'usr_1', credential: 'jwt', credentialId: 'jti_1', familyId: 'rtk_family' }));
  });

  it('answers a cached token of a cached account at once, without a promise', async () => {
    const access = token({});
    await authenticate(access);
    const { context, req } = contextOf(access);

    expect(guard.canActivate(context)).toBe(true);
    expect(req.auth).toEqual(expect.objectContaining({ userId: 'usr_1', credential: 'jwt' }));
  });

  it('refuses a cached token once it expires, with the expiry message, by verifying it again', async () => {
    const exp = Math.floor(NOW / 1000) + 2;
    const access = token({ exp });
    await authenticate(access);
    jest.setSystemTime(exp * 1000);

    await expect(authenticate(access)).rejects.toThrow('The access token has expired');
    expect(verifications).toHaveBeenCalledTimes(2);
  });

  it('never caches what failed: a tampered copy of a cached token and a refresh token are verified and refused each time', async () => {
    const access = token({});
    await authenticate(access);
    const [header, payload] = access.split('.');
    const tampered = `${header}.${payload}.${token({}, 'another-secret-0123456789abcdef0123456789').split('.')[2]}`;
    const refresh = token({ typ: 'refresh' });

    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(authenticate(tampered)).rejects.toThrow('malformed or its signature is invalid');
      await expect(authenticate(refresh)).rejects.toThrow(AuthenticationRequiredError);
    }
    expect(verifications).toHaveBeenCalledTimes(5);
  });

  it('still asks for the account on every request: a cached token of a removed account is refused', async () => {
    const access = token({});
    await authenticate(access);
    accounts.forget('usr_1');
    users.findAccount.mockResolvedValueOnce(null);

    await expect(authenticate(access)).rejects.toThrow('no longer exists');
    expect(verifications).toHaveBeenCalledTimes(1);
  });
});
