import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import type { AuthContext } from '@app/common';
import { AuthContextFactory } from '../auth/auth-context.factory';
import { ApiKeysService } from './api-keys.service';

export const API_KEY_STRATEGY = 'api-key';
export const API_KEY_HEADER = 'X-API-Key';

/** `X-API-Key: sk_<environment>_...`: a live key of this environment, acting with its own scopes. */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, API_KEY_STRATEGY) {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly contexts: AuthContextFactory,
  ) {
    super({ header: API_KEY_HEADER, prefix: '' }, false);
  }

  async validate(presented: string): Promise<AuthContext> {
    const key = await this.apiKeys.authenticate(presented);
    return this.contexts.build({ userId: key.userId, credential: 'api_key', scopes: key.scopes, credentialId: key.id });
  }
}
