import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthContext } from '@app/common';
import type { AuthenticatedRequest } from '../../platform/decorators/auth.decorator';
import { httpRequestOf } from '../../platform/request/http-arguments';
import { CredentialRevocationService } from '../credential-revocation.service';

/**
 * Refuses a revoked credential, after the rate-limit count (whose round trip already carried the
 * check on a limited route) and before the Idempotency-Key claim and the handler. It is refused
 * as authentication refuses: 401, the request anonymous again, so that the rate-limit error
 * filter counts it by client IP like any failed authentication.
 */
@Injectable()
export class RevocationCheckGuard implements CanActivate {
  constructor(private readonly revocations: CredentialRevocationService) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = httpRequestOf<AuthenticatedRequest>(context);
    const auth = req.auth;
    if (!auth) return true;
    const revoked = this.revocations.isRevoked(req);
    if (typeof revoked === 'boolean') return this.verdict(req, auth, revoked);
    return revoked.then((answer) => this.verdict(req, auth, answer));
  }

  private verdict(req: AuthenticatedRequest, auth: AuthContext, revoked: boolean): true {
    if (!revoked) return true;
    req.auth = undefined;
    throw this.revocations.refusal(auth);
  }
}
