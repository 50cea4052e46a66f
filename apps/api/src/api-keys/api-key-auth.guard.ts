import { Injectable } from '@nestjs/common';
import { AuthenticatesCredential, CredentialAuthenticator, CredentialCarrier } from '../auth/credentials/credential-authenticator';
import { PassportStrategyGuard } from '../auth/credentials/passport-strategy.guard';
import { ApiKeyStrategy } from './api-key.strategy';

/** Runs the API key strategy; its own errors say what was wrong with the key. */
@Injectable()
@AuthenticatesCredential('api_key')
export class ApiKeyAuthGuard extends PassportStrategyGuard implements CredentialAuthenticator {
  readonly kind = 'api_key';

  constructor(strategy: ApiKeyStrategy) {
    super(strategy);
  }

  carriedBy(req: CredentialCarrier): string | null {
    return req.headers['x-api-key'] === undefined ? null : 'an X-API-Key header';
  }

  protected refusal(): string {
    return 'The X-API-Key header is empty: send an API key.';
  }
}
