import { Injectable } from '@nestjs/common';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { AccountDirectory, AccountSnapshot } from './account-directory.service';
import { CredentialRegistry } from './credential-registry';

/** What a credential proves, with its kind; the account's role and plan are added by the factory. */
export type VerifiedCredential = Omit<AuthContext, 'role' | 'plan'>;

/** Builds every request's AuthContext in one place, whichever credential authenticated it. */
@Injectable()
export class AuthContextFactory {
  constructor(
    private readonly accounts: AccountDirectory,
    private readonly credentials: CredentialRegistry,
  ) {}

  /**
   * The caller at once while the account's role and plan are cached, so that a credential
   * verified from memory authenticates without a promise; else once the account is read.
   */
  build(verified: VerifiedCredential): AuthContext | Promise<AuthContext> {
    const cached = this.accounts.cached(verified.userId);
    if (cached !== undefined) return this.complete(verified, cached);
    return this.accounts.get(verified.userId).then((account) => this.complete(verified, account));
  }

  private complete(verified: VerifiedCredential, account: AccountSnapshot | null): AuthContext {
    if (!account) {
      const label = this.credentials.descriptorOf(verified.credential).accountLabel;
      throw new AuthenticationRequiredError(`The account of this ${label} no longer exists.`);
    }
    return { ...verified, role: account.role, plan: account.plan };
  }
}
