import { Injectable } from '@nestjs/common';
import { AuthContext, AuthenticationRequiredError, newId } from '@app/common';
import { RefreshTokenRepository } from './refresh-token.repository';
import { UserRepository } from './user.repository';
import { LoginAttemptLimiter } from './login-attempt.limiter';
import { PasswordHasher } from './password-hasher';
import { CredentialRevocationService } from './credential-revocation.service';
import { accessTokenMark, refreshFamilyMark } from './strategies/jwt.credential';
import { ACCESS_TOKEN_TTL_SECONDS, TokenPair, TokenService } from './token.service';

/**
 * A family mark outlives the access tokens it covers by a minute, so that a replica whose clock
 * runs ahead (later `exp` claims) is still covered.
 */
const FAMILY_MARK_TTL_SECONDS = ACCESS_TOKEN_TTL_SECONDS + 60;

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UserRepository,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly tokens: TokenService,
    private readonly revocations: CredentialRevocationService,
    private readonly hasher: PasswordHasher,
    private readonly loginAttempts: LoginAttemptLimiter,
  ) {}

  /**
   * The account id for a correct email and password, or null. After 10 failures for one email in
   * 15 minutes, every login path answers 429 (LoginAttemptLimiter).
   */
  async verifyPassword(email: string, password: string): Promise<string | null> {
    return this.loginAttempts.attempt(email, async () => {
      const user = await this.users.findByEmailWithPassword(email);
      const valid = await this.hasher.verify(user?.passwordHash, password);
      return user && valid ? user.id : null;
    });
  }

  async login(email: string, password: string): Promise<TokenPair> {
    const userId = await this.verifyPassword(email, password);
    if (!userId) throw new AuthenticationRequiredError('The email or password is incorrect.');
    return this.startFamily(userId);
  }

  /** Opens a new refresh family for an account: login, legacy migration and similar exchanges. */
  async startFamily(userId: string): Promise<TokenPair> {
    return this.issueInFamily(userId, newId('rtk'));
  }

  /**
   * Rotates a refresh token. Presenting one that was already rotated revokes its whole family
   * (RFC 9700 reuse detection), concurrent presentations of one token included.
   */
  async refresh(refreshToken: string): Promise<TokenPair> {
    const claims = this.tokens.verify(refreshToken, 'refresh');
    if (!claims) throw new AuthenticationRequiredError('The refresh token is invalid or expired. Log in again.');
    const issued = this.tokens.issuePair(claims.sub, claims.fam);
    const outcome = await this.refreshTokens.rotate(
      { id: claims.jti, familyId: claims.fam, userId: claims.sub },
      { id: issued.refreshJti, familyId: claims.fam, userId: claims.sub, expiresAt: issued.refreshExpiresAt },
    );
    switch (outcome) {
      case 'rotated':
        return issued.pair;
      case 'reused':
        await this.revokeFamily(claims.fam);
        throw new AuthenticationRequiredError(
          'The refresh token was already used; every token of its login has been revoked. Log in again.',
        );
      case 'invalid':
        throw new AuthenticationRequiredError('The refresh token has been revoked. Log in again.');
    }
  }

  /** Revokes the access token in use and its whole refresh family. */
  async logout(auth: AuthContext): Promise<void> {
    if (auth.credential !== 'jwt' || !auth.familyId) return;
    const secondsLeft = (auth.expiresAt ?? 0) - Math.floor(Date.now() / 1000);
    await Promise.all([this.revocations.revoke(accessTokenMark(auth.credentialId), secondsLeft), this.revokeFamily(auth.familyId)]);
  }

  private async revokeFamily(familyId: string): Promise<void> {
    await Promise.all([this.refreshTokens.revokeFamily(familyId), this.revocations.revoke(refreshFamilyMark(familyId), FAMILY_MARK_TTL_SECONDS)]);
  }

  private async issueInFamily(userId: string, familyId: string): Promise<TokenPair> {
    const issued = this.tokens.issuePair(userId, familyId);
    await this.refreshTokens.create({
      id: issued.refreshJti,
      familyId,
      userId,
      expiresAt: issued.refreshExpiresAt,
    });
    return issued.pair;
  }
}
