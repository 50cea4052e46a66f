import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { REDIS, RedisClient } from '@app/database';

/** One key for the whole fleet (under REDIS_PREFIX): whoever holds it prunes, or has just pruned. */
const LOCK_KEY = 'retention:prune-lock';

/** Sets the key's lifetime only while it still holds the caller's token. */
const EXTEND_IF_HELD = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
/** Deletes the key only while it still holds the caller's token. */
const RELEASE_IF_HELD = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * The lease that lets one worker of the fleet prune at a time. Its value is a token of the
 * holder's own, so that a holder whose lease expired (a pause longer than the lifetime) can
 * neither extend nor release the lease another worker took since.
 */
@Injectable()
export class RetentionLock {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  /** A token when the lease was free and is now the caller's for `ttlMs`; null when another holds it. */
  async acquire(ttlMs: number): Promise<string | null> {
    const token = randomUUID();
    const set = await this.redis.set(LOCK_KEY, token, 'PX', ttlMs, 'NX');
    return set === 'OK' ? token : null;
  }

  /** Keeps the lease `ttlMs` more from now; false when it is no longer the caller's. */
  async extend(token: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(EXTEND_IF_HELD, 1, LOCK_KEY, token, ttlMs)) === 1;
  }

  /** Frees the lease at once, if it is still the caller's. */
  async release(token: string): Promise<void> {
    await this.redis.eval(RELEASE_IF_HELD, 1, LOCK_KEY, token);
  }
}
