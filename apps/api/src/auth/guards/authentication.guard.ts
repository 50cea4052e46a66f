import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { isObservable, lastValueFrom } from 'rxjs';
import { AuthenticatedRequest } from '../../common/decorators/auth.decorator';
import { ACCEPTS_CLIENT_BASIC, ACCEPTS_LEGACY_TOKEN, IS_PUBLIC } from '../../common/decorators/public.decorator';
import { detectCredential, refuseRemovedMethods } from '../credential-detector';
import { CredentialRegistry } from '../credentials/credential-registry';

/**
 * The one global guard: denies by default, refuses removed methods on every route, lets
 * `@Public()` routes through, refuses ambiguous requests, and hands the request to the
 * authenticator of the one credential it carries. Scopes are checked afterwards by the ScopeGuard.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialRegistry,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) {
      refuseRemovedMethods(req, {
        legacyToken: this.reflector.getAllAndOverride<boolean>(ACCEPTS_LEGACY_TOKEN, targets) === true,
        clientBasic: this.reflector.getAllAndOverride<boolean>(ACCEPTS_CLIENT_BASIC, targets) === true,
      });
      return true;
    }
    const authenticator = detectCredential(req, this.credentials.all());
    const verdict = authenticator.canActivate(context);
    return (isObservable(verdict) ? await lastValueFrom(verdict) : await verdict) === true;
  }
}
