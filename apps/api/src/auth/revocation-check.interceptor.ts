import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../common/decorators/auth.decorator';
import { TokenRevocationService } from './token-revocation.service';

/**
 * The first interceptor, so after every guard: checks the revocation of a credential whose
 * check no guard made (a route or deployment without the rate limit), before the handler runs.
 * A revoked credential is refused as authentication refuses: 401, the request anonymous again.
 */
@Injectable()
export class RevocationCheckInterceptor implements NestInterceptor {
  constructor(private readonly revocations: TokenRevocationService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> | Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (this.revocations.pendingMarks(req.auth).length === 0) return next.handle();
    return this.check(req, next);
  }

  private async check(req: AuthenticatedRequest, next: CallHandler): Promise<Observable<unknown>> {
    if (req.auth && (await this.revocations.checkPending(req.auth))) {
      req.auth = undefined;
      throw this.revocations.revokedError();
    }
    return next.handle();
  }
}
