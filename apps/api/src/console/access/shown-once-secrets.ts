import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { REDIS, RedisClient } from '@app/database';

/** How long a new secret waits for the page that shows it: the redirect's GET follows at once. */
const KEPT_SECONDS = 60;
const TOKEN_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What a page after a redirect shows once: a new secret, and what it belongs to. */
export interface ShownOnceSecret {
  /** The record the secret belongs to (`key_...`, `wh_...`). */
  id: string;
  name: string;
  secret: string;
  /** When the secret it replaces stops working, where the page says so. */
  previousExpiresAt?: string;
}

/** The Redis key and the AES-256-GCM key a token stands for: neither tells the token. */
function derived(token: Buffer): { name: string; key: Buffer } {
  const digest = (purpose: string): Buffer => createHash('sha256').update(purpose).update(token).digest();
  return { name: `console:shown-once:${digest('name').toString('base64url')}`, key: digest('key') };
}

/**
 * New secrets between a console form's 303 and the GET that shows them (Post/Redirect/Get).
 * Redis holds them for a minute, encrypted with a key derived from a random token that only the
 * redirect's path carries (secrets are never stored in clear), readable once and only by the
 * user who made them, so that a reload or the back button never shows a secret again.
 */
@Injectable()
export class ShownOnceSecrets {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  /** Keeps the secret; the token names it in the redirect's path. */
  async keep(userId: string, shown: ShownOnceSecret): Promise<string> {
    const token = randomBytes(TOKEN_BYTES);
    const { name, key } = derived(token);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify({ userId, ...shown }), 'utf8'), cipher.final()]);
    await this.redis.set(name, Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64'), 'EX', KEPT_SECONDS);
    return token.toString('base64url');
  }

  /** The secret kept under the token for this user, removed as it is read; null when gone or another's. */
  async take(userId: string, token: string): Promise<ShownOnceSecret | null> {
    const raw = Buffer.from(token, 'base64url');
    if (raw.length !== TOKEN_BYTES || raw.toString('base64url') !== token) return null;
    const { name, key } = derived(raw);
    const kept = await this.redis.getdel(name);
    if (kept === null) return null;
    const bytes = Buffer.from(kept, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const opened = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    const { userId: owner, ...shown } = JSON.parse(opened) as ShownOnceSecret & { userId: string };
    return owner === userId ? shown : null;
  }
}
