import type { ExecutionContext } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { Request } from 'express';
import type { Strategy as StrategyRun } from 'passport-strategy';
import { AuthenticationRequiredError, CredentialKind } from '@app/common';
import type { UserRepository } from '../user.repository';
import type { AuthenticatedRequest } from '../../platform/decorators/auth.decorator';
import { Public } from '../../platform/decorators/public.decorator';
import { AccountDirectory } from '../account-directory.service';
import { AuthContextFactory } from '../auth-context.factory';
import type { CredentialDescriptor, CredentialStrategy, ProvenCredential } from '../credential';
import { CredentialRegistry } from '../credential-registry';
import { RouteAccessReader } from '../route-access';
import type { RouteTable } from '../../platform/routing/route-table';
import { AuthenticationGuard } from './authentication.guard';

const PROVEN: ProvenCredential = { userId: 'usr_1', scopes: [], credentialId: 'key_1' };

class Routes {
  guarded(this: void): void {}

  @Public()
  open(this: void): void {}
}

/** A strategy carried in `X-<kind>`, that ends `authenticate` the way it is told to. */
function strategy(kind: CredentialKind, ending: (run: StrategyRun, req: Request) => void, described: Partial<CredentialDescriptor> = {}): CredentialStrategy {
  const credential: CredentialDescriptor = {
    kind,
    label: kind,
    accountLabel: `${kind} credential`,
    carriage: { isCarriedBy: (req) => req.headers[`x-${kind}`] !== undefined },
    carriedAs: `an X-${kind} header`,
    refusal: (challenge) => (challenge instanceof Error ? `refused: ${challenge.message}` : 'no credential'),
    ...described,
  };
  return {
    credential,
    authenticate(this: StrategyRun, req: Request) {
      ending(this, req);
    },
  };
}

function setup(...strategies: CredentialStrategy[]) {
  const users = { findAccount: jest.fn().mockResolvedValue({ role: 'user', plan: 'pro' }) };
  const registry = new CredentialRegistry({} as DiscoveryService);
  for (const each of strategies) registry.register(each);
  const accounts = new AccountDirectory(users as unknown as UserRepository);
  const guard = new AuthenticationGuard(new RouteAccessReader(new Reflector(), ROUTES_SEEN_ON_THEIR_FIRST_REQUEST), registry, new AuthContextFactory(accounts, registry));
  return { guard, users, accounts };
}

function contextOf(req: AuthenticatedRequest, handler: keyof Routes = 'guarded'): ExecutionContext {
  return new ExecutionContextHost([req], Routes, Routes.prototype[handler]);
}

const requestWith = (kind: CredentialKind): AuthenticatedRequest => ({ headers: { [`x-${kind}`]: 'x' }, query: {} }) as unknown as AuthenticatedRequest;

/** The guard's answer as a promise, whether it answered at once (or threw) or later. */
function outcome(guard: AuthenticationGuard, req: AuthenticatedRequest): Promise<boolean> {
  return Promise.resolve().then(() => guard.canActivate(contextOf(req)));
}

/** No route listed at start-up: each test's routes have their access rules read on their first request. */
const ROUTES_SEEN_ON_THEIR_FIRST_REQUEST = { routes: () => [] } as unknown as RouteTable;

describe('AuthenticationGuard', () => {
  it("runs the strategy of the credential the request carries, and builds the caller with its descriptor's kind", async () => {
    const { guard } = setup(
      strategy('jwt', (run) => run.fail(401)),
      strategy('api_key', (run) => setImmediate(() => run.success(PROVEN))),
    );
    const req = requestWith('api_key');
    await expect(outcome(guard, req)).resolves.toBe(true);
    expect(req.auth).toEqual({ ...PROVEN, credential: 'api_key', role: 'user', plan: 'pro' });
  });

  it('answers at once when the strategy ends within authenticate and the account is cached, else through a promise', async () => {
    const { guard, accounts } = setup(strategy('session', (run) => run.success(PROVEN)));
    await accounts.get('usr_1');
    const req = requestWith('session');
    expect(guard.canActivate(contextOf(req))).toBe(true);
    expect(req.auth?.credential).toBe('session');

    accounts.forget('usr_1');
    const later = guard.canActivate(contextOf(requestWith('session')));
    expect(later).toBeInstanceOf(Promise);
    await expect(later).resolves.toBe(true);
  });

  it("refuses a caller the strategy did not prove with the credential's own 401, and a strategy's error as it is", async () => {
    const challenge = new Error('jwt expired');
    const failure = new Error('database down');
    const { guard } = setup(
      strategy('jwt', (run) => run.fail(challenge, 401)),
      strategy('api_key', (run) => run.error(failure)),
      strategy('oauth', () => {
        throw failure;
      }),
      strategy('session', (run) => run.pass()),
    );
    await expect(outcome(guard, requestWith('jwt'))).rejects.toThrow(new AuthenticationRequiredError('refused: jwt expired'));
    await expect(outcome(guard, requestWith('api_key'))).rejects.toBe(failure);
    await expect(outcome(guard, requestWith('oauth'))).rejects.toBe(failure);
    await expect(outcome(guard, requestWith('session'))).rejects.toThrow(new AuthenticationRequiredError('no credential'));
  });

  it('refuses a strategy that redirects', async () => {
    const { guard } = setup(strategy('jwt', (run) => run.redirect('https://example.com/')));
    await expect(outcome(guard, requestWith('jwt'))).rejects.toThrow('cannot redirect');
  });

  it('takes only the first ending of a strategy that ends twice', async () => {
    const { guard } = setup(
      strategy('jwt', (run) => {
        run.success(PROVEN);
        run.fail(new Error('too late'), 401);
      }),
    );
    await expect(outcome(guard, requestWith('jwt'))).resolves.toBe(true);
  });

  it('refuses the account of a credential once it is gone, naming the credential', async () => {
    const { guard, users } = setup(strategy('oauth', (run) => run.success(PROVEN)));
    users.findAccount.mockResolvedValue(null);
    await expect(outcome(guard, requestWith('oauth'))).rejects.toThrow('The account of this oauth credential no longer exists.');
  });

  it('runs each request on its own copy of the strategy', async () => {
    const runs: StrategyRun[] = [];
    const shared = strategy('jwt', (run) => {
      runs.push(run);
      setImmediate(() => run.success(PROVEN));
    });
    const { guard } = setup(shared);
    await Promise.all([outcome(guard, requestWith('jwt')), outcome(guard, requestWith('jwt'))]);
    expect(runs[0]).not.toBe(runs[1]);
    expect(Object.getPrototypeOf(runs[0])).toBe(shared);
    expect(Object.prototype.hasOwnProperty.call(shared, 'success')).toBe(false);
  });

  it('lets public routes through without running a strategy, after refusing removed methods', () => {
    const authenticate = jest.fn();
    const { guard } = setup(strategy('jwt', authenticate, { removedFormIn: (req) => (req.headers['x-old'] === undefined ? null : 'gone') }));
    expect(guard.canActivate(contextOf(requestWith('jwt'), 'open'))).toBe(true);
    const old = { headers: { 'x-old': '1' }, query: {} } as unknown as AuthenticatedRequest;
    expect(() => guard.canActivate(contextOf(old, 'open'))).toThrow(new AuthenticationRequiredError('gone'));
    expect(authenticate).not.toHaveBeenCalled();
  });
});
