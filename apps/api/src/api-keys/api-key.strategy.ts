import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { AuthenticatesCredential, CredentialStrategy, ProvenCredential } from '../auth/credential';
import { API_KEY_CREDENTIAL, API_KEY_HEADER } from './api-key.credential';
import { ApiKeysService } from './api-keys.service';

/** `X-API-Key: sk_<environment>_...`: a live key of this environment, acting with its own scopes. */
@Injectable()
@AuthenticatesCredential()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy) implements CredentialStrategy {
  readonly credential = API_KEY_CREDENTIAL;

  constructor(private readonly apiKeys: ApiKeysService) {
    super({ header: API_KEY_HEADER, prefix: '' }, false);
  }

  async validate(presented: string): Promise<ProvenCredential> {
    const key = await this.apiKeys.authenticate(presented);
    return { userId: key.userId, scopes: key.scopes, credentialId: key.id };
  }
}
