import type { ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Strategy } from 'passport';
import type { Strategy as StrategyRun } from 'passport-strategy';
import { ALL_SCOPES, AuthContext } from '@app/common';
import type { AuthenticatedRequest } from '../../common/decorators/auth.decorator';
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

describe('PassportStrategyGuard', () => {
  it('sets req.auth to the caller a strategy proves, asynchronously or not', async () => {
    for (const ending of [(run: StrategyRun) => run.success(CALLER), (run: StrategyRun) => setImmediate(() => run.success(CALLER))]) {
      const req = {} as AuthenticatedRequest;
      await expect(new RecordingGuard(strategy(ending)).canActivate(contextOf(req))).resolves.toBe(true);
      expect(req.auth).toBe(CALLER);
    }
  });

  it('hands a failure and its challenge to the verdict', async () => {
    const challenge = new Error('jwt expired');
    const guard = new RecordingGuard(strategy((run) => run.fail(challenge, 401)));
    const req = {} as AuthenticatedRequest;
    await expect(guard.canActivate(contextOf(req))).rejects.toThrow('jwt expired');
    expect(guard.verdicts).toEqual([[null, false, challenge]]);
    expect(req.auth).toBeUndefined();
  });

  it('hands an error, reported or thrown, to the verdict', async () => {
    const failure = new Error('database down');
    for (const ending of [(run: StrategyRun) => run.error(failure), () => { throw failure; }]) {
      const guard = new RecordingGuard(strategy(ending));
      await expect(guard.canActivate(contextOf({} as AuthenticatedRequest))).rejects.toBe(failure);
      expect(guard.verdicts).toEqual([[failure, false, undefined]]);
    }
  });

  it('treats a pass and a redirect as no caller', async () => {
    const passed = new RecordingGuard(strategy((run) => run.pass()));
    await expect(passed.canActivate(contextOf({} as AuthenticatedRequest))).rejects.toThrow('no credential');
    const redirected = new RecordingGuard(strategy((run) => run.redirect('https://example.com/')));
    await expect(redirected.canActivate(contextOf({} as AuthenticatedRequest))).rejects.toThrow('cannot redirect');
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
