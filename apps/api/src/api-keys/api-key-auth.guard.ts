import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { AuthenticatesCredential, CredentialAuthenticator, CredentialCarrier } from '../auth/credentials/credential-authenticator';
import { API_KEY_STRATEGY } from './api-key.strategy';

/** Runs the API key strategy; its own errors say what was wrong with the key. */
@Injectable()
@AuthenticatesCredential('api_key')
export class ApiKeyAuthGuard extends AuthGuard(API_KEY_STRATEGY) implements CredentialAuthenticator {
  readonly kind = 'api_key';

  carriedBy(req: CredentialCarrier): string | null {
    return req.headers['x-api-key'] === undefined ? null : 'an X-API-Key header';
  }

  override handleRequest<TUser = AuthContext>(error: unknown, auth: TUser | false): TUser {
    if (error instanceof Error) throw error;
    if (!auth) throw new AuthenticationRequiredError('The X-API-Key header is empty: send an API key.');
    return auth;
  }
}
