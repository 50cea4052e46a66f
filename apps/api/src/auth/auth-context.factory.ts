import { Injectable } from '@nestjs/common';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { AccountDirectory } from './account-directory.service';

/** What a credential proves; the account's role and plan are added by the factory. */
export type VerifiedCredential = Omit<AuthContext, 'role' | 'plan'>;

const CREDENTIAL_NAMES: Record<AuthContext['credential'], string> = {
  jwt: 'token',
  api_key: 'API key',
  session: 'session',
  oauth: 'OAuth access token',
};

/** Builds every request's AuthContext in one place, whichever credential authenticated it. */
@Injectable()
export class AuthContextFactory {
  constructor(private readonly accounts: AccountDirectory) {}

  async build(verified: VerifiedCredential): Promise<AuthContext> {
    const account = await this.accounts.get(verified.userId);
    if (!account) {
      throw new AuthenticationRequiredError(`The account of this ${CREDENTIAL_NAMES[verified.credential]} no longer exists.`);
    }
    return { ...verified, role: account.role, plan: account.plan };
  }
}
