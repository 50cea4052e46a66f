import { JwtService } from '@nestjs/jwt';
import { decode } from 'jsonwebtoken';
import { AppConfig } from '@app/config';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  JWT_ALGORITHM,
  REFRESH_TOKEN_TTL_SECONDS,
  TokenClaims,
  TokenService,
} from './token.service';

const SECRET = 'unit-test-secret-0123456789abcdef0123456789';

function tokenService(env: 'test' | 'live', secret = SECRET): TokenService {
  const config = Object.assign(new AppConfig(), { APP_ENV: env, JWT_SECRET: secret });
  const jwt = new JwtService({
    secret,
    signOptions: { algorithm: JWT_ALGORITHM },
    verifyOptions: { algorithms: [JWT_ALGORITHM] },
  });
  return new TokenService(jwt, config);
}

describe('TokenService', () => {
  const service = tokenService('test');

  it('issues an access and a refresh token of one family with the claims of docs/api.md#jwt', () => {
    const issued = service.issuePair('usr_1', 'rtk_family');
    const access = decode(issued.pair.access_token, { json: true }) as unknown as TokenClaims;
    const refresh = decode(issued.pair.refresh_token, { json: true }) as unknown as TokenClaims;

    expect(issued.pair.token_type).toBe('Bearer');
    expect(issued.pair.expires_in).toBe(ACCESS_TOKEN_TTL_SECONDS);
    expect(access).toEqual(
      expect.objectContaining({ iss: 'rms', aud: 'rms:test', sub: 'usr_1', typ: 'access', fam: 'rtk_family' }),
    );
    expect(refresh).toEqual(
      expect.objectContaining({
        iss: 'rms',
        aud: 'rms:test',
        sub: 'usr_1',
        typ: 'refresh',
        fam: 'rtk_family',
        jti: issued.refreshJti,
      }),
    );
    expect(access.exp - access.iat).toBe(ACCESS_TOKEN_TTL_SECONDS);
    expect(refresh.exp - refresh.iat).toBe(REFRESH_TOKEN_TTL_SECONDS);
    expect(Math.floor(issued.refreshExpiresAt.getTime() / 1000)).toBe(refresh.exp);
    expect(access.jti).not.toBe(refresh.jti);
  });

  it('verifies a token only as its own kind', () => {
    const { pair } = service.issuePair('usr_1', 'rtk_family');
    expect(service.verify(pair.access_token, 'access')?.sub).toBe('usr_1');
    expect(service.verify(pair.refresh_token, 'refresh')?.sub).toBe('usr_1');
    expect(service.verify(pair.access_token, 'refresh')).toBeNull();
    expect(service.verify(pair.refresh_token, 'access')).toBeNull();
  });

  it('refuses a token of the other environment', () => {
    const { pair } = tokenService('live').issuePair('usr_1', 'rtk_family');
    expect(service.verify(pair.refresh_token, 'refresh')).toBeNull();
  });

  it('refuses a token signed with another secret', () => {
    const { pair } = tokenService('test', 'another-secret-0123456789abcdef0123456789').issuePair('usr_1', 'rtk_family');
    expect(service.verify(pair.refresh_token, 'refresh')).toBeNull();
  });

  it('refuses garbage without throwing', () => {
    expect(service.verify('not-a-jwt', 'refresh')).toBeNull();
  });
});
