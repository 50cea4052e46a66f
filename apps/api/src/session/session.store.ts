import { Inject, Injectable } from '@nestjs/common';
import { isId, newId } from '@app/common';
import { REDIS, RedisClient } from '@app/database';
import { hashSecret, newOpaqueSecret, secretsEqual } from '../auth/opaque-secret';
import { ExpiringMap } from '../platform/cache/expiring-map';
import type { RequestSession } from '../platform/request/request-state';
import { CredentialRevocationService } from '../auth/credential-revocation.service';

/** A session lasts a day from login; it is not extended by use. */
export const SESSION_TTL_SECONDS = 24 * 60 * 60;

/** How long this process remembers a session it read, so that a request with it reads no Redis. */
export const REMEMBERED_SESSION_TTL_MS = 60_000;

/** A live login session: what the request's state keeps of it, so that one request reads it once. */
export type StoredSession = RequestSession;

interface SessionRecord extends StoredSession {
  secretHash: string;
}

const key = (id: string): string => `session:${id}`;

/** The mark an ended session leaves, so that replicas that remember it refuse it. */
export const sessionRevocationMark = (id: string): string => `revoked:ses:${id}`;

/**
 * Login sessions in Redis, shared by every replica. The cookie value is `<session id>.<secret>`;
 * Redis holds the secret's SHA-256 only, so a copy of Redis cannot be replayed as cookies, and
 * the sessions this process remembers are kept the same way.
 */
@Injectable()
export class SessionStore {
  private readonly remembered = new ExpiringMap<string, SessionRecord>();

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly revocations: CredentialRevocationService,
  ) {}

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

  /** The live session a cookie value names, read from Redis, or null for anything else. */
  async find(cookieValue: string): Promise<StoredSession | null> {
    const cookie = parseCookie(cookieValue);
    return cookie ? verify(await this.read(cookie.id), cookie.secret) : null;
  }

  /**
   * The session a cookie value names, as `find`, but answered from memory when this process read
   * it in the last minute. Such a session may have ended since on another replica: the caller
   * checks its revocation mark in Redis later in the same request, as the request pipeline does
   * (`CredentialRevocationService`) in the same round trip as the rate-limit count.
   */
  async findRemembered(cookieValue: string): Promise<StoredSession | null> {
    const cookie = parseCookie(cookieValue);
    if (!cookie) return null;
    const remembered = this.remembered.get(cookie.id);
    if (remembered) return verify(remembered, cookie.secret);
    const record = await this.read(cookie.id);
    if (record) this.remember(record);
    else this.remembered.delete(cookie.id);
    return verify(record, cookie.secret);
  }

  /** Ends the session on every replica: its mark refuses the sessions they remember. */
  async destroy(id: string): Promise<void> {
    this.remembered.delete(id);
    await this.revocations.revoke(sessionRevocationMark(id), SESSION_TTL_SECONDS);
    await this.redis.del(key(id));
  }

  private async read(id: string): Promise<SessionRecord | null> {
    const stored = await this.redis.get(key(id));
    return stored ? (JSON.parse(stored) as SessionRecord) : null;
  }

  /** Remembers a session for a minute, and never past its own end. */
  private remember(record: SessionRecord): void {
    const endsAt = Date.parse(record.createdAt) + SESSION_TTL_SECONDS * 1000;
    this.remembered.set(record.id, record, Math.min(Date.now() + REMEMBERED_SESSION_TTL_MS, endsAt));
  }
}

function parseCookie(cookieValue: string): { id: string; secret: string } | null {
  const [id, secret, ...rest] = cookieValue.split('.');
  return rest.length > 0 || !secret || !isId('ses', id) ? null : { id, secret };
}

/** The session, when the record exists and the cookie's secret is the one it was issued with. */
function verify(record: SessionRecord | null, secret: string): StoredSession | null {
  if (!record || !secretsEqual(record.secretHash, hashSecret(secret))) return null;
  return { id: record.id, userId: record.userId, csrfToken: record.csrfToken, createdAt: record.createdAt };
}
