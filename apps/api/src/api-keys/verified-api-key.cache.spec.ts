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

/** A PostgreSQL read of the key that answers when the test says so. */
function pendingRead() {
  let answer!: (value: ApiKeyEntity) => void;
  let refuse!: (error: Error) => void;
  const read = jest.fn(
    () =>
      new Promise<ApiKeyEntity>((resolve, reject) => {
        answer = resolve;
        refuse = reject;
      }),
  );
  return { read, answer: (value: ApiKeyEntity) => answer(value), refuse: (error: Error) => refuse(error) };
}

describe('VerifiedApiKeyCache', () => {
  it('trusts a verified key once its revocations are subscribed', async () => {
    const { cache, subscriber } = await setup();
    expect(subscriber.subscribe).toHaveBeenCalledWith('rms:api-keys:revoked');
    const read = jest.fn().mockResolvedValue(key);
    await expect(cache.resolve('hash', read)).resolves.toBe(key);
    await expect(cache.resolve('hash', read)).resolves.toBe(key);
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('shares one read between concurrent requests with the same key', async () => {
    const { cache } = await setup();
    const { read, answer } = pendingRead();
    const first = cache.resolve('hash', read);
    const second = cache.resolve('hash', read);
    answer(key);
    await expect(Promise.all([first, second])).resolves.toEqual([key, key]);
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('gives a refused key the same error for every request that shared the read, and reads again after', async () => {
    const { cache } = await setup();
    const { read, refuse } = pendingRead();
    const first = cache.resolve('hash', read);
    const second = cache.resolve('hash', read);
    refuse(new Error('The API key has been revoked.'));
    await expect(first).rejects.toThrow('The API key has been revoked.');
    await expect(second).rejects.toThrow('The API key has been revoked.');
    const again = jest.fn().mockResolvedValue(key);
    await expect(cache.resolve('hash', again)).resolves.toBe(key);
    expect(again).toHaveBeenCalledTimes(1);
  });

  it('drops a key when any replica announces its revocation', async () => {
    const { cache, subscriber, redis } = await setup();
    const read = jest.fn().mockResolvedValue(key);
    await cache.resolve('hash', read);
    subscriber.emit('message', 'rms:api-keys:revoked', 'key_1');
    await cache.resolve('hash', read);
    expect(read).toHaveBeenCalledTimes(2);
    await cache.announceRevocation('key_1');
    await cache.resolve('hash', read);
    expect(read).toHaveBeenCalledTimes(3);
    expect(redis.publish).toHaveBeenCalledWith('rms:api-keys:revoked', 'key_1');
  });

  it('neither caches a read that began before a revocation was heard nor lets a later request join it', async () => {
    const { cache, subscriber } = await setup();
    const before = pendingRead();
    const early = cache.resolve('hash', before.read);
    subscriber.emit('message', 'rms:api-keys:revoked', 'key_1');
    const after = jest.fn().mockRejectedValue(new Error('The API key has been revoked.'));
    await expect(cache.resolve('hash', after)).rejects.toThrow('The API key has been revoked.');
    before.answer(key);
    await expect(early).resolves.toBe(key);
    const next = jest.fn().mockResolvedValue(key);
    await cache.resolve('hash', next);
    expect(next).toHaveBeenCalledTimes(1);
  });

  it('forgets everything and trusts nothing while the subscription is down', async () => {
    const { cache, subscriber } = await setup();
    const read = jest.fn().mockResolvedValue(key);
    await cache.resolve('hash', read);
    subscriber.emit('close');
    await cache.resolve('hash', read);
    await cache.resolve('hash', read);
    expect(read).toHaveBeenCalledTimes(3);
    subscriber.emit('ready');
    await new Promise(setImmediate);
    await cache.resolve('hash', read);
    await cache.resolve('hash', read);
    expect(read).toHaveBeenCalledTimes(4);
  });
});
