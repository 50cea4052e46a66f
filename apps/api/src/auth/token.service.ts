import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AppConfig } from '@app/config';
import { newId, newOpaqueId } from '@app/common';

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
export const JWT_ISSUER = 'rms';
export const JWT_ALGORITHM = 'HS256';

export type TokenKind = 'access' | 'refresh';

/** The audience names the environment, so a `test` token is refused by a `live` service. */
export function jwtAudience(env: AppConfig['APP_ENV']): string {
  return `rms:${env}`;
}

/** Claims of every token the service signs (docs/api.md#jwt); `typ` is the token kind. */
export interface TokenClaims {
  iss: string;
  aud: string;
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  typ: TokenKind;
  /** The refresh family: every token descended from one login. */
  fam: string;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

export interface IssuedPair {
  pair: TokenPair;
  refreshJti: string;
  refreshExpiresAt: Date;
}

/** Signs and verifies the service's JWTs: HS256 only, audience bound to the environment. */
@Injectable()
export class TokenService {
  readonly audience: string;

  constructor(
    private readonly jwt: JwtService,
    config: AppConfig,
  ) {
    this.audience = jwtAudience(config.APP_ENV);
  }

  issuePair(userId: string, familyId: string): IssuedPair {
    const refreshJti = newId('rtk');
    const now = Math.floor(Date.now() / 1000);
    // One clock reading for both tokens and refreshExpiresAt: jsonwebtoken counts exp from iat.
    const sign = (typ: TokenKind, jwtid: string, ttl: number): string =>
      this.jwt.sign({ typ, fam: familyId, iat: now }, { subject: userId, jwtid, expiresIn: ttl, audience: this.audience, issuer: JWT_ISSUER });
    return {
      pair: {
        access_token: sign('access', newOpaqueId(), ACCESS_TOKEN_TTL_SECONDS),
        refresh_token: sign('refresh', refreshJti, REFRESH_TOKEN_TTL_SECONDS),
        token_type: 'Bearer',
        expires_in: ACCESS_TOKEN_TTL_SECONDS,
      },
      refreshJti,
      refreshExpiresAt: new Date((now + REFRESH_TOKEN_TTL_SECONDS) * 1000),
    };
  }

  /** Claims of a valid token of the given kind, or null for anything else. */
  verify(token: string, kind: TokenKind): TokenClaims | null {
    try {
      const claims = this.jwt.verify<TokenClaims>(token, {
        algorithms: [JWT_ALGORITHM],
        audience: this.audience,
        issuer: JWT_ISSUER,
      });
      return claims.typ === kind ? claims : null;
    } catch {
      return null;
    }
  }
}
