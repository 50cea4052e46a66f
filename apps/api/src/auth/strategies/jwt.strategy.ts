import { Injectable } from '@nestjs/common';
import { createSecretKey } from 'node:crypto';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AppConfig } from '@app/config';
import { ALL_SCOPES, AuthContext, AuthenticationRequiredError } from '@app/common';
import { AuthContextFactory } from '../auth-context.factory';
import { JWT_ALGORITHM, JWT_ISSUER, jwtAudience, TokenClaims } from '../token.service';
import { VerifiedJwtCache } from './verified-jwt.cache';

export const JWT_STRATEGY = 'jwt';

const tokenOf = ExtractJwt.fromAuthHeaderAsBearerToken();
const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * `Authorization: Bearer <access token>`: signature, algorithm, audience and kind. A token
 * verified once is taken from VerifiedJwtCache until it expires. Revocation is checked later in
 * the request, once (TokenRevocationService), with the rate-limit count.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  private readonly verified = new VerifiedJwtCache();

  constructor(
    config: AppConfig,
    private readonly contexts: AuthContextFactory,
  ) {
    super({
      jwtFromRequest: tokenOf,
      // A prebuilt KeyObject: given a string, jsonwebtoken first tries (and fails) to parse it as a
      // public key on every verification, which costs more than the HMAC itself. The typings lag.
      secretOrKey: createSecretKey(Buffer.from(config.jwtSecret, 'utf8')) as unknown as Buffer,
      algorithms: [JWT_ALGORITHM],
      issuer: JWT_ISSUER,
      audience: jwtAudience(config.APP_ENV),
      ignoreExpiration: false,
      passReqToCallback: true,
    });
  }

  /**
   * passport-jwt's verification, unless this exact token was verified before and has not
   * expired; then, with the account cached too, the caller is known without a promise.
   */
  override authenticate(req: Request, options?: object): void {
    const token = tokenOf(req);
    const claims = token === null ? undefined : this.verified.claimsOf(token);
    if (claims === undefined) return super.authenticate(req, options);
    let auth: AuthContext | Promise<AuthContext>;
    try {
      auth = this.callerOf(claims);
    } catch (error) {
      return this.error(asError(error));
    }
    if (!(auth instanceof Promise)) return this.success(auth);
    auth.then(
      (caller) => this.success(caller),
      (error: unknown) => this.error(asError(error)),
    );
  }

  /** Called by passport-jwt once it has verified a token. */
  async validate(req: Request, claims: TokenClaims): Promise<AuthContext> {
    const caller = await this.callerOf(claims);
    const token = tokenOf(req);
    if (token !== null) this.verified.remember(token, claims);
    return caller;
  }

  private callerOf(claims: TokenClaims): AuthContext | Promise<AuthContext> {
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
