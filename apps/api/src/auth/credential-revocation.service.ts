import { Inject, Injectable } from '@nestjs/common';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { REDIS, RedisClient } from '@app/database';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import { requestStateOf } from '../platform/request/request-state';
import { ANY_KEY_EXISTS, RedisPipelineBatch } from '../platform/redis/redis-pipeline-batch';
import { CredentialRegistry } from './credential-registry';

const NO_MARKS: readonly string[] = [];

/**
 * Whether a credential has been revoked, for every API replica: a revoked credential leaves a
 * mark in Redis, under a key its descriptor names (`revocation.marksOf`), that lasts as long as
 * the credential could be presented. A credential whose descriptor names no marks is revoked
 * where it is verified, and never checked here.
 *
 * A request's credential is checked once, whoever asks first (RateLimitGuard, whose count script
 * checks the marks in the same call, `marksToCheck`; else RevocationCheckGuard), and its answer
 * kept in the request's state for the rest of the request. Checks go in the turn's Redis pipeline
 * (RedisPipelineBatch).
 */
@Injectable()
export class CredentialRevocationService {
  /** One EXISTS per check, of all the marks it names. */
  private readonly checks = ANY_KEY_EXISTS;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly turn: RedisPipelineBatch,
    private readonly credentials: CredentialRegistry,
  ) {}

  /** Revokes a credential on every replica: `mark` is one of its descriptor's marks, kept `ttlSeconds`. */
  async revoke(mark: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(mark, '1', 'EX', Math.max(1, Math.ceil(ttlSeconds)));
  }

  /** Whether the caller's credential is revoked: at once when it is known or has no marks, else once Redis answers. */
  isRevoked(req: AuthenticatedRequest): boolean | Promise<boolean> {
    const auth = req.auth;
    if (!auth) return false;
    const state = requestStateOf(req);
    if (state.revoked !== undefined) return state.revoked;
    const marks = this.marksOf(auth);
    if (marks.length === 0) return (state.revoked = false);
    const answer = this.check(marks).then((revoked) => (state.revoked = revoked));
    state.revoked = answer;
    return answer;
  }

  /** The marks whose check would answer for the caller's credential: none when its answer is known or it has none. */
  marksToCheck(req: AuthenticatedRequest): readonly string[] {
    if (!req.auth || requestStateOf(req).revoked !== undefined) return NO_MARKS;
    return this.marksOf(req.auth);
  }

  /** Keeps the answer a check made elsewhere (the rate-limit count's script) for the rest of the request. */
  record(req: AuthenticatedRequest, revoked: boolean): void {
    requestStateOf(req).revoked = revoked;
  }

  private marksOf(auth: AuthContext): readonly string[] {
    return this.credentials.descriptorOf(auth.credential).revocation?.marksOf(auth) ?? NO_MARKS;
  }

  /**
   * Whether any of the marks is set: one EXISTS for them all, or on a Redis Cluster, where a
   * credential's marks may live in different slots, one EXISTS per mark.
   */
  private check(marks: readonly string[]): Promise<boolean> {
    if (!this.redis.isCluster || marks.length === 1) return this.turn.add(this.checks, marks);
    return Promise.all(marks.map((mark) => this.turn.add(this.checks, [mark]))).then((found) => found.includes(true));
  }

  /** The 401 of a revoked credential, in its descriptor's words. */
  refusal(auth: AuthContext): AuthenticationRequiredError {
    return new AuthenticationRequiredError(this.credentials.descriptorOf(auth.credential).revocation?.message);
  }
}
