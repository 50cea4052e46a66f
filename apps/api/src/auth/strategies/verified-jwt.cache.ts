import type { TokenClaims } from '../token.service';

/** Bounds the memory of a process that sees many distinct tokens; past it, the cache starts over. */
const MAX_ENTRIES = 10_000;

/**
 * Access tokens this process has verified (signature, algorithm, issuer and audience), by their
 * exact text, with their claims, until they expire. Verification is a function of the text, the
 * secret and the clock alone, and costs an HMAC and two decodes on every request. An expired
 * entry is never answered: the token is verified again, and jsonwebtoken words the 401.
 * Revocation is not cached here; it is checked in Redis on every request.
 */
export class VerifiedJwtCache {
  private readonly byToken = new Map<string, TokenClaims>();

  claimsOf(token: string, nowMs = Date.now()): TokenClaims | undefined {
    const claims = this.byToken.get(token);
    if (claims === undefined) return undefined;
    // jsonwebtoken's own rule: expired once the whole second reaches `exp`.
    if (Math.floor(nowMs / 1000) < claims.exp) return claims;
    this.byToken.delete(token);
    return undefined;
  }

  remember(token: string, claims: TokenClaims): void {
    if (this.byToken.size >= MAX_ENTRIES) this.byToken.clear();
    this.byToken.set(token, claims);
  }
}
