import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthenticatedRequest } from '../../common/decorators/auth.decorator';
import { IS_PUBLIC } from '../../common/decorators/public.decorator';
import { detectCredential } from '../credential-detector';
import { ApiKeyAuthGuard } from './api-key-auth.guard';
import { JwtAuthGuard } from './jwt-auth.guard';
import { SessionAuthGuard } from './session-auth.guard';

/**
 * The one global guard: denies by default, lets `@Public()` routes through, refuses removed
 * methods and ambiguous requests, and hands the request to the guard of the one credential it
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
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const credential = detectCredential(context.switchToHttp().getRequest<AuthenticatedRequest>());
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
