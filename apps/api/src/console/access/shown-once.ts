import { Inject, Injectable } from '@nestjs/common';
import { REDIS, RedisClient } from '@app/database';
import type { SignedInUser } from './signed-in-user';

/** Long enough for the redirect after a create to be followed, short for a secret kept in Redis. */
const SHOWN_ONCE_TTL_SECONDS = 10 * 60;

/**
 * What a page shows once, a new secret with its record: held in Redis for the session that made
 * it, for one GET of the page the create redirects to, then gone. Never in an address, so that
 * neither history nor logs keep it.
 */
@Injectable()
export class ShownOnce {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  /** Holds `view` for one showing at `path` to this session. */
  async hold(user: SignedInUser, path: string, view: object): Promise<void> {
    await this.redis.set(this.key(user, path), JSON.stringify(view), 'EX', SHOWN_ONCE_TTL_SECONDS);
  }

  /** What is held for `path`, once: null when it was shown already, or never held for this session. */
  async take<T extends object>(user: SignedInUser, path: string): Promise<T | null> {
    const held = await this.redis.getdel(this.key(user, path));
    return held === null ? null : (JSON.parse(held) as T);
  }

  private key(user: SignedInUser, path: string): string {
    return `console:shown-once:${user.auth.credentialId}:${path}`;
  }
}
