import type { DiscoveryService } from '@nestjs/core';
import type Redis from 'ioredis';
import { connectRunRedis } from '@app/testing';
import { CredentialRevocationService } from '../auth/credential-revocation.service';
import { CredentialRegistry } from '../auth/credential-registry';
import { RedisPipelineBatch } from '../platform/redis/redis-pipeline-batch';
import { SESSION_TTL_SECONDS, SessionStore } from './session.store';

/** Against the test run's Redis: sessions are Redis records, remembered by the process for a minute. */
describe('SessionStore', () => {
  let redis: Redis;
  let store: SessionStore;

  beforeAll(() => {
    redis = connectRunRedis();
    store = new SessionStore(redis, new CredentialRevocationService(redis, new RedisPipelineBatch(redis), new CredentialRegistry({} as DiscoveryService)));
  });
  afterAll(async () => {
    await redis.quit();
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('answers a remembered session from memory, and checks its secret each time', async () => {
    const { session, cookieValue } = await store.create('usr_1');
    expect(await store.findRemembered(cookieValue)).toEqual(session);
    const reads = jest.spyOn(redis, 'get');
    expect(await store.findRemembered(cookieValue)).toEqual(session);
    expect(await store.findRemembered(`${session.id}.${'x'.repeat(43)}`)).toBeNull();
    expect(reads).not.toHaveBeenCalled();
  });

  it('reads Redis in find, so that a session ended elsewhere is refused there at once', async () => {
    const { session, cookieValue } = await store.create('usr_1');
    expect(await store.findRemembered(cookieValue)).toEqual(session);
    await redis.del(`session:${session.id}`);
    expect(await store.find(cookieValue)).toBeNull();
  });

  it('ends a session with a mark that outlives it and forgets it here', async () => {
    const { session, cookieValue } = await store.create('usr_1');
    await store.findRemembered(cookieValue);
    await store.destroy(session.id);
    expect(await redis.exists(`session:${session.id}`)).toBe(0);
    expect(await redis.ttl(`revoked:ses:${session.id}`)).toBeGreaterThan(SESSION_TTL_SECONDS - 60);
    expect(await store.findRemembered(cookieValue)).toBeNull();
  });

  it('does not remember a session past its end', async () => {
    const { session, cookieValue } = await store.create('usr_1');
    const endsAt = Date.parse(session.createdAt) + SESSION_TTL_SECONDS * 1000;
    const now = jest.spyOn(Date, 'now').mockReturnValue(endsAt - 10_000);
    expect(await store.findRemembered(cookieValue)).toEqual(session);
    now.mockReturnValue(endsAt);
    // Redis expires the record at the session's end; the remembered copy must not outlive it.
    await redis.del(`session:${session.id}`);
    expect(await store.findRemembered(cookieValue)).toBeNull();
  });

  it('refuses malformed cookie values without reading Redis', async () => {
    const reads = jest.spyOn(redis, 'get');
    for (const value of ['', 'ses_x', 'garbage.secret', 'a.b.c']) expect(await store.findRemembered(value)).toBeNull();
    expect(reads).not.toHaveBeenCalled();
  });
});
