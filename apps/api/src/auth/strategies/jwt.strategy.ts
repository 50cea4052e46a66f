import { Injectable } from '@nestjs/common';
import { createSecretKey } from 'node:crypto';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-jwt';
import { AppConfig } from '@app/config';
import { ALL_SCOPES, AuthenticationRequiredError } from '@app/common';
import { AuthenticatesCredential, bearerToken, CredentialStrategy, ProvenCredential } from '../credential';
import { JWT_ALGORITHM, JWT_ISSUER, jwtAudience, TokenClaims } from '../token.service';
import { JWT_CREDENTIAL } from './jwt.credential';
import { VerifiedJwtCache } from './verified-jwt.cache';

/** The token of `Authorization: Bearer <token>`, read as the credential's detection read it. */
const tokenOf = (req: Request): string | null => bearerToken(req) ?? null;

/**
 * `Authorization: Bearer <access token>`: signature, algorithm, audience and kind. A token
 * verified once is taken from VerifiedJwtCache until it expires. Revocation is checked later in
 * the request, once (CredentialRevocationService), in the round trip of the rate-limit count.
 */
@Injectable()
@AuthenticatesCredential()
export class JwtStrategy extends PassportStrategy(Strategy) implements CredentialStrategy {
  readonly credential = JWT_CREDENTIAL;
  private readonly verified = new VerifiedJwtCache();

  constructor(config: AppConfig) {
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
   * expired; then the strategy succeeds at once, within `authenticate`.
   */
  override authenticate(req: Request, options?: object): void {
    const token = tokenOf(req);
    const claims = token === null ? undefined : this.verified.claimsOf(token);
    if (claims === undefined) return super.authenticate(req, options);
    this.success(provenBy(claims));
  }

  /** Called by passport-jwt once it has verified a token. */
  validate(req: Request, claims: TokenClaims): ProvenCredential {
    const proven = provenBy(claims);
    const token = tokenOf(req);
    if (token !== null) this.verified.remember(token, claims);
    return proven;
  }
}

/** What a verified access token proves; a refresh token proves nothing here. */
function provenBy(claims: TokenClaims): ProvenCredential {
  if (claims.typ !== 'access') throw new AuthenticationRequiredError('Use an access token, not a refresh token.');
  return { userId: claims.sub, scopes: ALL_SCOPES, credentialId: claims.jti, expiresAt: claims.exp, familyId: claims.fam };
}
