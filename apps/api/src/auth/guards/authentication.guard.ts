import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthenticatedRequest } from '../../common/decorators/auth.decorator';
import { ACCEPTS_LEGACY_TOKEN, IS_PUBLIC } from '../../common/decorators/public.decorator';
import { detectCredential, refuseRemovedMethods } from '../credential-detector';
import { ApiKeyAuthGuard } from './api-key-auth.guard';
import { JwtAuthGuard } from './jwt-auth.guard';
import { SessionAuthGuard } from './session-auth.guard';

/**
 * The one global guard: denies by default, refuses removed methods on every route, lets
 * `@Public()` routes through, refuses ambiguous requests, and hands the request to the guard of the one credential it
 * carries. Scopes are checked afterwards by the ScopeGuard.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly jwtGuard: JwtAuthGuard,
    private readonly apiKeyGuard: ApiKeyAuthGuard,
    private readonly sessionGuard: SessionAuthGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) {
      refuseRemovedMethods(req, this.reflector.getAllAndOverride<boolean>(ACCEPTS_LEGACY_TOKEN, targets) === true);
      return true;
    }
    const credential = detectCredential(req);
    switch (credential) {
      case 'bearer':
        return (await this.jwtGuard.canActivate(context)) === true;
      case 'api_key':
        return (await this.apiKeyGuard.canActivate(context)) === true;
      case 'session':
        return (await this.sessionGuard.canActivate(context)) === true;
    }
  }
}
