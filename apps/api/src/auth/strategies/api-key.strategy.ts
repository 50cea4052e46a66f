import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { ApiKeysService } from '../../api-keys/api-keys.service';
import { AccountDirectory } from '../account-directory.service';

export const API_KEY_STRATEGY = 'api-key';
export const API_KEY_HEADER = 'X-API-Key';

/** `X-API-Key: sk_<environment>_...`: a live key of this environment, acting with its own scopes. */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, API_KEY_STRATEGY) {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly accounts: AccountDirectory,
  ) {
    super({ header: API_KEY_HEADER, prefix: '' }, false);
  }

  async validate(presented: string): Promise<AuthContext> {
    const key = await this.apiKeys.authenticate(presented);
    const account = await this.accounts.get(key.userId);
    if (!account) throw new AuthenticationRequiredError('The account of this API key no longer exists.');
    return {
      userId: key.userId,
      role: account.role,
      plan: account.plan,
      credential: 'api_key',
      scopes: key.scopes,
      credentialId: key.id,
    };
  }
}
