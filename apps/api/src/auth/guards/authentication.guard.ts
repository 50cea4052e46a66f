import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Strategy as StrategyRun } from 'passport-strategy';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { AuthenticatedRequest } from '../../platform/decorators/auth.decorator';
import { httpRequestOf } from '../../platform/request/http-arguments';
import { AuthContextFactory } from '../auth-context.factory';
import { detectCredential, refuseRemovedMethods } from '../credential-detector';
import { CredentialDescriptor, CredentialStrategy, ProvenCredential } from '../credential';
import { CredentialRegistry } from '../credential-registry';
import { RouteAccessReader } from '../route-access';

/** How a strategy's `authenticate` ended: what it proved, or why it did not. */
interface StrategyEnding {
  error: unknown;
  proven: ProvenCredential | false;
  /** The strategy's challenge on failure (passport-jwt gives the verification error). */
  challenge?: unknown;
}

/**
 * The one authentication guard: denies by default, refuses removed methods on every route, lets
 * `@Public()` routes through, refuses ambiguous requests, and runs the Passport strategy of the
 * one credential a request carries; the AuthContext is built from what it proves, with the kind
 * its descriptor declares. Scopes are checked afterwards by the ScopeGuard, revocation by the
 * RevocationCheckGuard.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly routes: RouteAccessReader,
    private readonly credentials: CredentialRegistry,
    private readonly contexts: AuthContextFactory,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = httpRequestOf<AuthenticatedRequest>(context);
    const access = this.routes.of(context);
    if (access.isPublic) {
      refuseRemovedMethods(req, access, this.credentials.all());
      return true;
    }
    const strategy = detectCredential(req, access, this.credentials.all());
    // A credential verified from memory, of an account in memory, answers at once, without a promise.
    const ending = this.run(strategy, req);
    if (ending instanceof Promise) return ending.then((ended) => this.admit(req, strategy.credential, ended));
    return this.admit(req, strategy.credential, ending);
  }

  private admit(req: AuthenticatedRequest, credential: CredentialDescriptor, { error, proven, challenge }: StrategyEnding): boolean | Promise<boolean> {
    if (error instanceof Error) throw error;
    if (!proven) throw new AuthenticationRequiredError(credential.refusal(challenge));
    const auth = this.contexts.build({ ...proven, credential: credential.kind });
    if (!(auth instanceof Promise)) return this.admitted(req, auth);
    return auth.then((caller) => this.admitted(req, caller));
  }

  private admitted(req: AuthenticatedRequest, auth: AuthContext): true {
    req.auth = auth;
    return true;
  }

  /**
   * Runs a strategy by the protocol of passport-strategy, as `passport.authenticate` does:
   * `authenticate` is called on a per-request copy that carries the action functions. Not through
   * `passport.authenticate` itself, which also writes `req.login`, `req.logout` and four more
   * properties onto every request for session support this stateless API never uses, and costs
   * more than the rest of authenticating a cached credential.
   */
  private run(strategy: CredentialStrategy, req: AuthenticatedRequest): StrategyEnding | Promise<StrategyEnding> {
    let ended: StrategyEnding | undefined;
    let later: ((ending: StrategyEnding) => void) | undefined;
    const end = (ending: StrategyEnding): void => {
      if (ended !== undefined) return;
      ended = ending;
      later?.(ending);
    };
    const run = Object.create(strategy) as StrategyRun;
    run.success = (proven: ProvenCredential) => end({ error: null, proven });
    run.fail = (challenge?: unknown) => end({ error: null, proven: false, challenge });
    run.error = (error: unknown) => end({ error, proven: false });
    run.pass = () => end({ error: null, proven: false });
    run.redirect = () => end({ error: new Error('An API credential strategy cannot redirect.'), proven: false });
    try {
      run.authenticate(req);
    } catch (error) {
      end({ error, proven: false });
    }
    return ended ?? new Promise<StrategyEnding>((resolve) => (later = resolve));
  }
}
