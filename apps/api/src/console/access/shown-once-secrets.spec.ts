import type { RedisClient } from '@app/database';
import { ShownOnceSecrets } from './shown-once-secrets';

/** The two commands the store uses, over a Map. */
function fakeRedis(): { redis: RedisClient; values: Map<string, string> } {
  const values = new Map<string, string>();
  const redis = {
    set: (name: string, value: string) => {
      values.set(name, value);
      return Promise.resolve('OK');
    },
    getdel: (name: string) => {
      const value = values.get(name) ?? null;
      values.delete(name);
      return Promise.resolve(value);
    },
  };
  return { redis: redis as unknown as RedisClient, values };
}

const SHOWN = { id: 'key_01JD3Q0F6K8W2M4N6P8R0T2V4X', name: 'CI deploys', secret: 'sk_test_5fQm0c2ZrT9aB1xYw8VnK3pLd7HsE4gJ6uRtY0oPqWe' };

describe('ShownOnceSecrets', () => {
  it('shows a secret once, to the user who made it, and keeps it in Redis only encrypted', async () => {
    const { redis, values } = fakeRedis();
    const secrets = new ShownOnceSecrets(redis);
    const token = await secrets.keep('usr_1', SHOWN);
    expect([...values.keys()].join()).not.toContain(token);
    expect([...values.values()].join()).not.toContain(SHOWN.secret);
    await expect(secrets.take('usr_1', token)).resolves.toEqual(SHOWN);
    await expect(secrets.take('usr_1', token)).resolves.toBeNull();
  });

  it("refuses another user's token, a malformed one and an unknown one", async () => {
    const { redis } = fakeRedis();
    const secrets = new ShownOnceSecrets(redis);
    const token = await secrets.keep('usr_1', SHOWN);
    await expect(secrets.take('usr_2', token)).resolves.toBeNull();
    await expect(secrets.take('usr_1', token)).resolves.toBeNull();
    await expect(secrets.take('usr_1', 'not a token')).resolves.toBeNull();
    await expect(secrets.take('usr_1', 'A'.repeat(43))).resolves.toBeNull();
  });
});
