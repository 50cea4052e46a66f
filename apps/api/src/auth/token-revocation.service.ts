import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { REDIS } from '@app/database';
import { TurnBatch } from '../platform/redis/turn-batch';
import { ACCESS_TOKEN_TTL_SECONDS } from './token.service';

/**
 * A family mark outlives the access tokens it covers by a minute, so that a replica whose
 * clock runs ahead (later `exp` claims) is still covered.
 */
const FAMILY_MARK_TTL_SECONDS = ACCESS_TOKEN_TTL_SECONDS + 60;

/** Credentials checked per pipeline: a larger burst is split, so that no call holds Redis long. */
const MAX_CHECKS_PER_CALL = 256;

/**
 * Revoked access tokens and refresh families, and ended sessions, kept in Redis as marks so that
 * every API replica honours them. Entries expire when the longest-lived credential they could
 * cover would.
 *
 * A JWT or a session is checked once per request, after authentication: on a rate-limited route
 * by the rate-limit script in the same round trip as the count (`settle`), elsewhere by
 * RevocationCheckGuard (`checkPending`), the last guard, where the checks made in one turn of
 * the event loop share one pipelined round trip. The session's mark is what lets a replica
 * authenticate a session it remembers without reading it again.
 */
@Injectable()
export class TokenRevocationService {
  /** Credentials (one AuthContext per request) whose marks have been checked. */
  private readonly checked = new WeakSet<AuthContext>();
  /** Per credential, how many of its marks exist. */
  private readonly checks = new TurnBatch<string[], number>((markSets) => this.countMarks(markSets), MAX_CHECKS_PER_CALL);

  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async revokeAccessToken(jti: string, expiresAt: number): Promise<void> {
    const ttl = Math.max(1, expiresAt - Math.floor(Date.now() / 1000));
    await this.redis.set(`revoked:jti:${jti}`, '1', 'EX', ttl);
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.redis.set(`revoked:fam:${familyId}`, '1', 'EX', FAMILY_MARK_TTL_SECONDS);
  }

  /** Marks a session ended, for as long as it could have lasted. */
  async revokeSession(sessionId: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(`revoked:ses:${sessionId}`, '1', 'EX', ttlSeconds);
  }

  /** The Redis keys whose existence revokes this request's credential, unless already checked. */
  pendingMarks(auth: AuthContext | undefined): string[] {
    if (!auth || this.checked.has(auth)) return [];
    if (auth.credential === 'jwt') return [`revoked:jti:${auth.credentialId}`, `revoked:fam:${auth.familyId ?? ''}`];
    if (auth.credential === 'session') return [`revoked:ses:${auth.credentialId}`];
    return [];
  }

  /** Records that the marks were found absent by a check made elsewhere. */
  settle(auth: AuthContext): void {
    this.checked.add(auth);
  }

  /** Checks the marks still pending, in one round trip; true when the credential is revoked. */
  async checkPending(auth: AuthContext): Promise<boolean> {
    const marks = this.pendingMarks(auth);
    if (marks.length === 0) return false;
    if ((await this.checks.add(marks)) > 0) return true;
    this.settle(auth);
    return false;
  }

  /** One EXISTS per credential, pipelined; a failed command fails the whole batch. */
  private async countMarks(markSets: readonly string[][]): Promise<number[]> {
    const pipeline = this.redis.pipeline();
    for (const marks of markSets) pipeline.exists(...marks);
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, count]) => {
      if (error) throw error;
      return count as number;
    });
  }

  /** The 401 of a revoked credential, whichever check found it. */
  revokedError(auth: AuthContext | undefined): AuthenticationRequiredError {
    return new AuthenticationRequiredError(
      auth?.credential === 'session'
        ? 'The session has ended. Log in again with POST /v2/session/login.'
        : 'The access token has been revoked. Log in again.',
    );
  }
}
