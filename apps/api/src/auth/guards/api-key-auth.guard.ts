import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { API_KEY_STRATEGY } from '../strategies/api-key.strategy';

/** Runs the API key strategy; its own errors say what was wrong with the key. */
@Injectable()
export class ApiKeyAuthGuard extends AuthGuard(API_KEY_STRATEGY) {
  override handleRequest<TUser = AuthContext>(error: unknown, auth: TUser | false): TUser {
    if (error instanceof Error) throw error;
    if (!auth) throw new AuthenticationRequiredError('The X-API-Key header is empty: send an API key.');
    return auth;
  }
}
