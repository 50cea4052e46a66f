import type { CanActivate, ExecutionContext } from '@nestjs/common';
import type { Strategy } from 'passport';
import type { Strategy as StrategyRun } from 'passport-strategy';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import type { AuthenticatedRequest } from '../../platform/decorators/auth.decorator';

/** How a strategy's `authenticate` ended: the caller it proved, or why it did not. */
interface StrategyOutcome {
  error: unknown;
  auth: AuthContext | false;
  /** The strategy's challenge on failure (passport-jwt gives the verification error). */
  info?: unknown;
}

/**
 * Runs one Passport strategy (a `@nestjs/passport` PassportStrategy provider) by the protocol of
 * passport-strategy: `authenticate` is called on a per-request copy of the strategy that carries
 * the action functions (`success`, `fail`, `error`, `pass`, `redirect`). This is what
 * `passport.authenticate` does, without its session helpers: it also writes `req.login`,
 * `req.logout` and four more properties onto every request, which this stateless API never
 * calls, and those writes were the single largest cost of authenticating a request.
 * On success `req.auth` is set; a strategy's error is thrown as it is, and a caller it did not
 * prove is a 401 whose message the credential's guard words (`refusal`).
 */
export abstract class PassportStrategyGuard implements CanActivate {
  protected constructor(private readonly strategy: Strategy) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // A strategy that ends within `authenticate` (a credential verified from memory) is
    // answered at once; one that ends later, through a promise.
    let ended: StrategyOutcome | undefined;
    let later: ((outcome: StrategyOutcome) => void) | undefined;
    const end = (outcome: StrategyOutcome): void => {
      if (ended !== undefined) return;
      ended = outcome;
      later?.(outcome);
    };
    const run = Object.create(this.strategy) as StrategyRun;
    run.success = (auth: AuthContext) => end({ error: null, auth });
    run.fail = (challenge?: unknown) => end({ error: null, auth: false, info: challenge });
    run.error = (error: unknown) => end({ error, auth: false });
    run.pass = () => end({ error: null, auth: false });
    run.redirect = () => end({ error: new Error('An API credential strategy cannot redirect.'), auth: false });
    try {
      run.authenticate(req);
    } catch (error) {
      end({ error, auth: false });
    }
    const settle = ({ error, auth, info }: StrategyOutcome): boolean => {
      req.auth = this.verdict(error, auth, info);
      return true;
    };
    if (ended !== undefined) return settle(ended);
    return new Promise<StrategyOutcome>((resolve) => (later = resolve)).then(settle);
  }

  /** The AuthContext the strategy proved, or the error that answers the request. */
  protected verdict(error: unknown, auth: AuthContext | false, info: unknown): AuthContext {
    if (error instanceof Error) throw error;
    if (!auth) throw new AuthenticationRequiredError(this.refusal(info));
    return auth;
  }

  /** What the 401 says when the strategy proved no caller; `info` is its challenge. */
  protected abstract refusal(info: unknown): string;
}
