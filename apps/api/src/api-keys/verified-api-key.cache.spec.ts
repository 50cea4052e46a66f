import { EventEmitter } from 'node:events';
import type Redis from 'ioredis';
import type { AppConfig } from '@app/config';
import type { ApiKeyEntity } from '@app/database';
import { VerifiedApiKeyCache } from './verified-api-key.cache';

class FakeSubscriber extends EventEmitter {
  subscribe = jest.fn().mockResolvedValue(1);
  quit = jest.fn().mockResolvedValue('OK');
}

async function setup() {
  const subscriber = new FakeSubscriber();
  const redis = { duplicate: () => subscriber, publish: jest.fn().mockResolvedValue(1) };
  const cache = new VerifiedApiKeyCache(redis as unknown as Redis, { REDIS_PREFIX: 'rms' } as AppConfig);
  cache.onApplicationBootstrap();
  subscriber.emit('ready');
  await new Promise(setImmediate);
  return { cache, subscriber, redis };
}

const key = { id: 'key_1', userId: 'usr_1', scopes: ['read:users'] } as unknown as ApiKeyEntity;

describe('VerifiedApiKeyCache', () => {
  it('trusts a verified key once its revocations are subscribed', async () => {
    const { cache, subscriber } = await setup();
    expect(subscriber.subscribe).toHaveBeenCalledWith('rms:api-keys:revoked');
    cache.remember('hash', key, cache.revision());
    expect(cache.get('hash')).toBe(key);
  });

  it('drops a key when any replica announces its revocation', async () => {
    const { cache, subscriber, redis } = await setup();
    cache.remember('hash', key, cache.revision());
    subscriber.emit('message', 'rms:api-keys:revoked', 'key_1');
    expect(cache.get('hash')).toBeUndefined();
    cache.remember('hash', key, cache.revision());
    await cache.announceRevocation('key_1');
    expect(cache.get('hash')).toBeUndefined();
    expect(redis.publish).toHaveBeenCalledWith('rms:api-keys:revoked', 'key_1');
  });

  it('does not cache a lookup that began before a revocation was heard', async () => {
    const { cache, subscriber } = await setup();
    const revision = cache.revision();
    subscriber.emit('message', 'rms:api-keys:revoked', 'key_1');
    cache.remember('hash', key, revision);
    expect(cache.get('hash')).toBeUndefined();
  });

  it('forgets everything and trusts nothing while the subscription is down', async () => {
    const { cache, subscriber } = await setup();
    cache.remember('hash', key, cache.revision());
    subscriber.emit('close');
    expect(cache.get('hash')).toBeUndefined();
    cache.remember('hash', key, cache.revision());
    expect(cache.get('hash')).toBeUndefined();
    subscriber.emit('ready');
    await new Promise(setImmediate);
    cache.remember('hash', key, cache.revision());
    expect(cache.get('hash')).toBe(key);
  });
});
