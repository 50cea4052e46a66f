import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthenticatedRequest } from '../../platform/decorators/auth.decorator';
import { TokenRevocationService } from '../token-revocation.service';

/**
 * The last guard: checks the revocation of a credential whose check the rate-limit count did
 * not make (a route or deployment without the limit), before the Idempotency-Key claim and the handler.
 * A revoked credential is refused as authentication refuses: 401, the request anonymous again.
 */
@Injectable()
export class RevocationCheckGuard implements CanActivate {
  constructor(private readonly revocations: TokenRevocationService) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (this.revocations.pendingMarks(req.auth).length === 0) return true;
    return this.check(req);
  }

  private async check(req: AuthenticatedRequest): Promise<boolean> {
    const auth = req.auth;
    if (auth && (await this.revocations.checkPending(auth))) {
      req.auth = undefined;
      throw this.revocations.revokedError(auth);
    }
    return true;
  }
}
