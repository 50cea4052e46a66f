import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { REDIS, RedisClient } from '@app/database';

/** How long a new secret waits for the page that shows it: the redirect's GET follows at once. */
const KEPT_SECONDS = 60;

/** What a page after a redirect shows once: a new secret, and what it belongs to. */
export interface ShownOnceSecret {
  /** The record the secret belongs to (`key_...`, `wh_...`). */
  id: string;
  name: string;
  secret: string;
  /** When the secret it replaces stops working, where the page says so. */
  previousExpiresAt?: string;
}

/**
 * New secrets between a console form's 303 and the GET that shows them (Post/Redirect/Get): kept
 * in Redis for a minute under a random token, readable once and only by the user who made them,
 * so that a reload or the back button never shows a secret again.
 */
@Injectable()
export class ShownOnceSecrets {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  /** Keeps the secret; the token names it in the redirect's path. */
  async keep(userId: string, shown: ShownOnceSecret): Promise<string> {
    const token = randomBytes(18).toString('base64url');
    await this.redis.set(this.keyOf(token), JSON.stringify({ userId, ...shown }), 'EX', KEPT_SECONDS);
    return token;
  }

  /** The secret kept under the token for this user, removed as it is read; null when gone or another's. */
  async take(userId: string, token: string): Promise<ShownOnceSecret | null> {
    if (!/^[A-Za-z0-9_-]{24}$/.test(token)) return null;
    const kept = await this.redis.getdel(this.keyOf(token));
    if (kept === null) return null;
    const { userId: owner, ...shown } = JSON.parse(kept) as ShownOnceSecret & { userId: string };
    return owner === userId ? shown : null;
  }

  private keyOf(token: string): string {
    return `console:shown-once:${token}`;
  }
}
