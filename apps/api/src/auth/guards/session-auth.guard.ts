import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { SESSION_STRATEGY } from '../strategies/session.strategy';

/** Runs the session strategy: 401 for a dead session, 403 for a missing CSRF token. */
@Injectable()
export class SessionAuthGuard extends AuthGuard(SESSION_STRATEGY) {
  override handleRequest<TUser = AuthContext>(error: unknown, auth: TUser | false): TUser {
    if (error instanceof Error) throw error;
    if (!auth) throw new AuthenticationRequiredError('The session has ended or is not valid. Log in again.');
    return auth;
  }
}
