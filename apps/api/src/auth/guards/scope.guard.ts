import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { InsufficientPermissionsError, Scope, ScopeArea } from '@app/common';
import { AuthenticatedRequest } from '../../platform/decorators/auth.decorator';
import { httpRequestOf } from '../../platform/request/http-arguments';
import { alternatives } from '../credential';
import { CredentialRegistry } from '../credential-registry';
import { RouteAccessReader } from '../route-access';

const READ_METHODS = new Set(['GET', 'HEAD']);

/** GET and HEAD need `read:<area>`, every other method `write:<area>`: write does not imply read. */
export function requiredScope(method: string, area: ScopeArea): Scope {
  return READ_METHODS.has(method.toUpperCase()) ? `read:${area}` : `write:${area}`;
}

/**
 * Runs after authentication on every route: refuses with 403 a credential whose scopes do not
 * cover the route's `@ScopeArea`, and anything but a user's own login on `@UserLoginOnly()` routes.
 */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(
    private readonly routes: RouteAccessReader,
    private readonly credentials: CredentialRegistry,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const access = this.routes.of(context);
    if (access.isPublic) return true;
    const req = httpRequestOf<AuthenticatedRequest>(context);
    const auth = req.auth;
    // Authentication runs first and sets it; its absence is a wiring defect, so fail closed.
    if (!auth) throw new Error('ScopeGuard ran before authentication.');
    const credential = this.credentials.descriptorOf(auth.credential);
    if (access.userLoginOnly && credential.userLoginAs === undefined) {
      throw new InsufficientPermissionsError(`An ${credential.label} cannot call this endpoint: use ${this.userLogins()}.`);
    }
    const area = access.scopeArea;
    // The startup check refuses undeclared routes; should one slip through, it is closed.
    if (area === undefined) throw new Error(`${context.getClass().name}.${context.getHandler().name} declares no scope area.`);
    if (area === null) return true;
    const scope = requiredScope(req.method, area);
    if (!auth.scopes.includes(scope)) {
      throw new InsufficientPermissionsError(
        `This ${credential.label} lacks the scope ${scope} needed for ${req.method} here; it has ${auth.scopes.join(', ') || 'no scopes'}.`,
      );
    }
    return true;
  }

  private userLogins(): string {
    return alternatives(this.credentials.all().flatMap(({ credential }) => (credential.userLoginAs === undefined ? [] : [credential.userLoginAs])));
  }
}
