import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { RefreshTokenRepository, RotationOutcome } from './refresh-token.repository';
import { UserRepository } from './user.repository';
import { LoginAttemptLimiter } from './login-attempt.limiter';
import { AuthService } from './auth.service';
import { PasswordHasher } from './password-hasher';
import { CredentialRevocationService } from './credential-revocation.service';
import { TokenClaims, TokenService } from './token.service';

const PAIR = { access_token: 'a', refresh_token: 'r', token_type: 'Bearer' as const, expires_in: 900 };
const CLAIMS: TokenClaims = {
  iss: 'rms',
  aud: 'rms:test',
  sub: 'usr_1',
  jti: 'rtk_old',
  iat: 0,
  exp: 1,
  typ: 'refresh',
  fam: 'rtk_family',
};

function setup(
  options: { claims?: TokenClaims | null; outcome?: RotationOutcome; passwordOk?: boolean; user?: boolean } = {},
) {
  const users = {
    findByEmailWithPassword: jest
      .fn()
      .mockResolvedValue(options.user === false ? null : { id: 'usr_1', passwordHash: 'hash' }),
  };
  const refreshTokens = {
    create: jest.fn().mockResolvedValue(undefined),
    rotate: jest.fn().mockResolvedValue(options.outcome ?? 'rotated'),
    revokeFamily: jest.fn().mockResolvedValue(undefined),
  };
  const tokens = {
    verify: jest.fn().mockReturnValue(options.claims === undefined ? CLAIMS : options.claims),
    issuePair: jest.fn().mockReturnValue({ pair: PAIR, refreshJti: 'rtk_new', refreshExpiresAt: new Date(1000) }),
  };
  const revocations = { revoke: jest.fn().mockResolvedValue(undefined) };
  const hasher = { verify: jest.fn().mockResolvedValue(options.passwordOk ?? true) };
  const loginAttempts = { attempt: (_email: string, check: () => Promise<unknown>) => check() };
  const service = new AuthService(
    users as unknown as UserRepository,
    refreshTokens as unknown as RefreshTokenRepository,
    tokens as unknown as TokenService,
    revocations as unknown as CredentialRevocationService,
    hasher as unknown as PasswordHasher,
    loginAttempts as unknown as LoginAttemptLimiter,
  );
  return { service, users, refreshTokens, tokens, revocations, hasher };
}

describe('AuthService', () => {
  describe('login', () => {
    it('opens a new family and stores its refresh token', async () => {
      const { service, refreshTokens } = setup();
      await expect(service.login('ada@example.com', 'password-1')).resolves.toEqual(PAIR);
      expect(refreshTokens.create).toHaveBeenCalledWith(
        expect.objectContaining({ id: 'rtk_new', userId: 'usr_1', expiresAt: new Date(1000) }),
      );
    });

    it('refuses a wrong password', async () => {
      const { service, refreshTokens } = setup({ passwordOk: false });
      await expect(service.login('ada@example.com', 'wrong')).rejects.toBeInstanceOf(AuthenticationRequiredError);
      expect(refreshTokens.create).not.toHaveBeenCalled();
    });

    it('still asks the hasher to verify for an unknown email (no hash), so both failures take as long', async () => {
      const { service, hasher } = setup({ user: false, passwordOk: true });
      await expect(service.login('nobody@example.com', 'password-1')).rejects.toBeInstanceOf(
        AuthenticationRequiredError,
      );
      expect(hasher.verify).toHaveBeenCalledWith(undefined, 'password-1');
    });
  });

  describe('refresh', () => {
    it('rotates within the family of the presented token', async () => {
      const { service, refreshTokens, tokens } = setup();
      await expect(service.refresh('token')).resolves.toEqual(PAIR);
      expect(tokens.issuePair).toHaveBeenCalledWith('usr_1', 'rtk_family');
      expect(refreshTokens.rotate).toHaveBeenCalledWith(
        { id: 'rtk_old', familyId: 'rtk_family', userId: 'usr_1' },
        { id: 'rtk_new', familyId: 'rtk_family', userId: 'usr_1', expiresAt: new Date(1000) },
      );
    });

    it('revokes the whole family, in the database and for access tokens, on reuse', async () => {
      const { service, refreshTokens, revocations } = setup({ outcome: 'reused' });
      await expect(service.refresh('token')).rejects.toThrow(/already used/);
      expect(refreshTokens.revokeFamily).toHaveBeenCalledWith('rtk_family');
      expect(revocations.revoke).toHaveBeenCalledWith('revoked:fam:rtk_family', 15 * 60 + 60);
    });

    it('refuses a revoked or unknown token without revoking anything more', async () => {
      const { service, refreshTokens, revocations } = setup({ outcome: 'invalid' });
      await expect(service.refresh('token')).rejects.toBeInstanceOf(AuthenticationRequiredError);
      expect(refreshTokens.revokeFamily).not.toHaveBeenCalled();
      expect(revocations.revoke).not.toHaveBeenCalled();
    });

    it('refuses a token that does not verify before touching the database', async () => {
      const { service, refreshTokens } = setup({ claims: null });
      await expect(service.refresh('token')).rejects.toBeInstanceOf(AuthenticationRequiredError);
      expect(refreshTokens.rotate).not.toHaveBeenCalled();
    });
  });

  describe('logout', () => {
    const jwtAuth: AuthContext = {
      userId: 'usr_1',
      role: 'user',
      plan: 'free',
      credential: 'jwt',
      scopes: [],
      credentialId: 'jti_1',
      expiresAt: 123,
      familyId: 'rtk_family',
    };

    it('revokes the access token until it expires and its family', async () => {
      const { service, refreshTokens, revocations } = setup();
      jest.spyOn(Date, 'now').mockReturnValueOnce(100_000);
      await service.logout(jwtAuth);
      expect(revocations.revoke).toHaveBeenCalledWith('revoked:jti:jti_1', 23);
      expect(revocations.revoke).toHaveBeenCalledWith('revoked:fam:rtk_family', 15 * 60 + 60);
      expect(refreshTokens.revokeFamily).toHaveBeenCalledWith('rtk_family');
    });

    it('leaves credentials other than a JWT alone', async () => {
      const { service, revocations } = setup();
      await service.logout({ ...jwtAuth, credential: 'api_key', familyId: undefined });
      expect(revocations.revoke).not.toHaveBeenCalled();
    });
  });
});
