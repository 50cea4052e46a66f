import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthenticationRequiredError } from '@app/common';
import { AuthenticatedRequest } from '../../common/decorators/auth.decorator';
import { IS_PUBLIC } from '../../common/decorators/public.decorator';
import { JwtAuthGuard } from './jwt-auth.guard';

/**
 * The one global guard: denies by default, lets `@Public()` routes through, and hands the
 * request to the guard of the credential it carries.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly jwtGuard: JwtAuthGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const authorization = req.headers.authorization;
    if (authorization === undefined) throw new AuthenticationRequiredError();
    if (!/^Bearer\s+\S+$/.test(authorization)) {
      throw new AuthenticationRequiredError('The Authorization header must be "Bearer <token>".');
    }
    return (await this.jwtGuard.canActivate(context)) === true;
  }
}
