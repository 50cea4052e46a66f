import { ExpiringMap } from '../../platform/cache/expiring-map';
import type { TokenClaims } from '../token.service';

/**
 * Access tokens this process has verified (signature, algorithm, issuer and audience), by their
 * exact text, with their claims, until they expire. Verification is a function of the text, the
 * secret and the clock alone, and costs an HMAC and two decodes on every request. An expired
 * entry is never answered: the token is verified again, and jsonwebtoken words the 401.
 * Revocation is not cached here; it is checked in Redis on every request.
 */
export class VerifiedJwtCache {
  private readonly byToken = new ExpiringMap<string, TokenClaims>();

  claimsOf(token: string, nowMs = Date.now()): TokenClaims | undefined {
    return this.byToken.get(token, nowMs);
  }

  remember(token: string, claims: TokenClaims): void {
    // jsonwebtoken's own rule: expired once the whole second reaches `exp`.
    this.byToken.set(token, claims, claims.exp * 1000);
  }
}
