import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import { AuthenticatedRequest } from '../../platform/decorators/auth.decorator';
import { detectCredential, refuseRemovedMethods } from '../credential-detector';
import { CredentialRegistry } from '../credentials/credential-registry';
import { RouteAccessReader } from '../route-access';

/**
 * The one global guard: denies by default, refuses removed methods on every route, lets
 * `@Public()` routes through, refuses ambiguous requests, and hands the request to the
 * authenticator of the one credential it carries. Scopes are checked afterwards by the ScopeGuard.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly routes: RouteAccessReader,
    private readonly credentials: CredentialRegistry,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const access = this.routes.of(context);
    if (access.isPublic) {
      refuseRemovedMethods(req, { legacyToken: access.acceptsLegacyToken, clientBasic: access.acceptsClientBasic });
      return true;
    }
    const authenticator = detectCredential(req, this.credentials.all());
    // A credential verified from memory answers at once, without a promise.
    const verdict = authenticator.canActivate(context);
    if (typeof verdict === 'boolean') return verdict;
    return (isObservable(verdict) ? lastValueFrom(verdict) : verdict).then((allowed) => allowed === true);
  }
}
