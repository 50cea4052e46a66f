import { Injectable } from '@nestjs/common';
import { AuthenticationRequiredError } from '@app/common';
import { LegacyTokenRepository } from './legacy-token.repository';
import { AuthService } from '../auth/auth.service';
import type { TokenPair } from '../auth/token.service';
import { hashSecret } from '../auth/opaque-secret';

@Injectable()
export class LegacyTokensService {
  constructor(
    private readonly tokens: LegacyTokenRepository,
    private readonly auth: AuthService,
  ) {}

  /** Exchanges an imported legacy token, once, for a token pair of a new login. */
  async migrate(presented: string | undefined): Promise<TokenPair> {
    const token = presented?.trim();
    if (!token) throw new AuthenticationRequiredError('Send the legacy token in the X-Auth-Token header.');
    const tokenHash = hashSecret(token);
    const userId = await this.tokens.consume(tokenHash);
    if (userId) return this.auth.startFamily(userId);
    if (await this.tokens.isUsed(tokenHash)) {
      throw new AuthenticationRequiredError('This legacy token has already been exchanged. Log in with POST /v2/auth/login.');
    }
    throw new AuthenticationRequiredError('The legacy token is not valid.');
  }
}
