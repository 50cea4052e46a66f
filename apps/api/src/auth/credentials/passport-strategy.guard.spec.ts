import type { ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Strategy } from 'passport';
import type { Strategy as StrategyRun } from 'passport-strategy';
import { ALL_SCOPES, AuthContext } from '@app/common';
import type { AuthenticatedRequest } from '../../platform/decorators/auth.decorator';
import { PassportStrategyGuard } from './passport-strategy.guard';

const CALLER: AuthContext = { userId: 'usr_1', role: 'user', plan: 'free', credential: 'jwt', scopes: ALL_SCOPES, credentialId: 'jti' };

/** A strategy that ends `authenticate` the way it is told to. */
function strategy(ending: (run: StrategyRun, req: Request) => void): Strategy {
  return {
    authenticate(this: StrategyRun, req: Request) {
      ending(this, req);
    },
  };
}

class RecordingGuard extends PassportStrategyGuard {
  readonly verdicts: unknown[][] = [];

  constructor(used: Strategy) {
    super(used);
  }

  protected override verdict(error: unknown, auth: AuthContext | false, info: unknown): AuthContext {
    this.verdicts.push([error, auth, info]);
    return super.verdict(error, auth, info);
  }

  protected refusal(info: unknown): string {
    return info instanceof Error ? info.message : 'no credential';
  }
}

function contextOf(req: AuthenticatedRequest): ExecutionContext {
  return { switchToHttp: () => ({ getRequest: () => req }) } as unknown as ExecutionContext;
}

/** The guard's answer as a promise, whether it answered at once (or threw) or later. */
function outcome(guard: PassportStrategyGuard, req: AuthenticatedRequest): Promise<boolean> {
  return Promise.resolve().then(() => guard.canActivate(contextOf(req)));
}

describe('PassportStrategyGuard', () => {
  it('sets req.auth to the caller a strategy proves, asynchronously or not', async () => {
    for (const ending of [(run: StrategyRun) => run.success(CALLER), (run: StrategyRun) => setImmediate(() => run.success(CALLER))]) {
      const req = {} as AuthenticatedRequest;
      await expect(outcome(new RecordingGuard(strategy(ending)), req)).resolves.toBe(true);
      expect(req.auth).toBe(CALLER);
    }
  });

  it('answers at once when the strategy ends within authenticate, and through a promise when it ends later', async () => {
    const req = {} as AuthenticatedRequest;
    expect(new RecordingGuard(strategy((run) => run.success(CALLER))).canActivate(contextOf(req))).toBe(true);
    expect(req.auth).toBe(CALLER);
    expect(() => new RecordingGuard(strategy((run) => run.fail(new Error('jwt expired'), 401))).canActivate(contextOf(req))).toThrow('jwt expired');

    const late = new RecordingGuard(strategy((run) => setImmediate(() => run.success(CALLER)))).canActivate(contextOf(req));
    expect(late).toBeInstanceOf(Promise);
    await expect(late).resolves.toBe(true);
  });

  it('takes only the first ending of a strategy that ends twice', async () => {
    const guard = new RecordingGuard(
      strategy((run) => {
        run.success(CALLER);
        run.fail(new Error('too late'), 401);
      }),
    );
    await expect(outcome(guard, {} as AuthenticatedRequest)).resolves.toBe(true);
    expect(guard.verdicts).toEqual([[null, CALLER, undefined]]);
  });

  it('hands a failure and its challenge to the verdict', async () => {
    const challenge = new Error('jwt expired');
    const guard = new RecordingGuard(strategy((run) => run.fail(challenge, 401)));
    const req = {} as AuthenticatedRequest;
    await expect(outcome(guard, req)).rejects.toThrow('jwt expired');
    expect(guard.verdicts).toEqual([[null, false, challenge]]);
    expect(req.auth).toBeUndefined();
  });

  it('hands an error, reported or thrown, to the verdict', async () => {
    const failure = new Error('database down');
    for (const ending of [(run: StrategyRun) => run.error(failure), () => { throw failure; }]) {
      const guard = new RecordingGuard(strategy(ending));
      await expect(outcome(guard, {} as AuthenticatedRequest)).rejects.toBe(failure);
      expect(guard.verdicts).toEqual([[failure, false, undefined]]);
    }
  });

  it('treats a pass and a redirect as no caller', async () => {
    const passed = new RecordingGuard(strategy((run) => run.pass()));
    await expect(outcome(passed, {} as AuthenticatedRequest)).rejects.toThrow('no credential');
    const redirected = new RecordingGuard(strategy((run) => run.redirect('https://example.com/')));
    await expect(outcome(redirected, {} as AuthenticatedRequest)).rejects.toThrow('cannot redirect');
  });

  it('runs each request on its own copy of the strategy', async () => {
    const runs: StrategyRun[] = [];
    const shared = strategy((run) => {
      runs.push(run);
      setImmediate(() => run.success(CALLER));
    });
    const guard = new RecordingGuard(shared);
    await Promise.all([guard.canActivate(contextOf({} as AuthenticatedRequest)), guard.canActivate(contextOf({} as AuthenticatedRequest))]);
    expect(runs[0]).not.toBe(runs[1]);
    expect(Object.getPrototypeOf(runs[0])).toBe(shared);
    expect(Object.prototype.hasOwnProperty.call(shared, 'success')).toBe(false);
  });
});
