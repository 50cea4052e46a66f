import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { isId, newId } from '@app/common';
import { REDIS } from '@app/database';
import { hashSecret, newOpaqueSecret, secretsEqual } from '../auth/opaque-secret';

/** A session lasts a day from login; it is not extended by use. */
export const SESSION_TTL_SECONDS = 24 * 60 * 60;

export interface StoredSession {
  id: string;
  userId: string;
  csrfToken: string;
  createdAt: string;
}

interface SessionRecord extends StoredSession {
  secretHash: string;
}

const key = (id: string): string => `session:${id}`;

/**
 * Login sessions in Redis, shared by every replica. The cookie value is `<session id>.<secret>`;
 * Redis holds the secret's SHA-256 only, so a copy of Redis cannot be replayed as cookies.
 */
@Injectable()
export class SessionStore {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async create(userId: string): Promise<{ session: StoredSession; cookieValue: string }> {
    const secret = newOpaqueSecret();
    const session: StoredSession = {
      id: newId('ses'),
      userId,
      csrfToken: newOpaqueSecret(),
      createdAt: new Date().toISOString(),
    };
    const record: SessionRecord = { ...session, secretHash: hashSecret(secret) };
    await this.redis.set(key(session.id), JSON.stringify(record), 'EX', SESSION_TTL_SECONDS);
    return { session, cookieValue: `${session.id}.${secret}` };
  }

  /** The live session a cookie value names, or null for anything else. */
  async find(cookieValue: string): Promise<StoredSession | null> {
    const [id, secret, ...rest] = cookieValue.split('.');
    if (rest.length > 0 || !secret || !isId('ses', id)) return null;
    const stored = await this.redis.get(key(id));
    if (!stored) return null;
    const { secretHash, ...session } = JSON.parse(stored) as SessionRecord;
    return secretsEqual(secretHash, hashSecret(secret)) ? session : null;
  }

  async destroy(id: string): Promise<void> {
    await this.redis.del(key(id));
  }
}
