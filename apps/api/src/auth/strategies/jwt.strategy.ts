import { Injectable } from '@nestjs/common';
import { createSecretKey } from 'node:crypto';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AppConfig } from '@app/config';
import { ALL_SCOPES, AuthContext, AuthenticationRequiredError } from '@app/common';
import { AuthContextFactory } from '../auth-context.factory';
import { JWT_ALGORITHM, JWT_ISSUER, jwtAudience, TokenClaims } from '../token.service';

export const JWT_STRATEGY = 'jwt';

/**
 * `Authorization: Bearer <access token>`: signature, algorithm, audience and kind. Revocation is
 * checked later in the request, once (TokenRevocationService), with the rate-limit count.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(
    config: AppConfig,
    private readonly contexts: AuthContextFactory,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // A prebuilt KeyObject: given a string, jsonwebtoken first tries (and fails) to parse it as a
      // public key on every verification, which costs more than the HMAC itself. The typings lag.
      secretOrKey: createSecretKey(Buffer.from(config.jwtSecret, 'utf8')) as unknown as Buffer,
      algorithms: [JWT_ALGORITHM],
      issuer: JWT_ISSUER,
      audience: jwtAudience(config.APP_ENV),
      ignoreExpiration: false,
    });
  }

  validate(claims: TokenClaims): Promise<AuthContext> {
    if (claims.typ !== 'access') throw new AuthenticationRequiredError('Use an access token, not a refresh token.');
    return this.contexts.build({
      userId: claims.sub,
      credential: 'jwt',
      scopes: ALL_SCOPES,
      credentialId: claims.jti,
      expiresAt: claims.exp,
      familyId: claims.fam,
    });
  }
}
