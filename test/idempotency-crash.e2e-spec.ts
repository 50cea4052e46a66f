import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import Redis from 'ioredis';
import { createTestApp, newCredentials, RunningApi, startBuiltApi, TestApp } from './support';
import { IdempotencyStore } from '../apps/api/src/platform/idempotency/idempotency.store';

/**
 * An Idempotency-Key across a crash between a write's COMMIT and the key's completion in Redis
 * (docs/api.md#idempotency): the key's outcome is in PostgreSQL with the write, so a retry
 * after the claim's lease ran out never writes again. The crashing process is the built API
 * with IDEMPOTENCY_TEST_CRASH, which ends it at once (SIGKILL) at that point; the retry goes to
 * another process, as after a restart.
 */

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: Record<string, unknown> & { id: string }; error?: { code: string; message: string } };
}

async function call(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
  extraHeaders: Record<string, string> = {},
): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...extraHeaders };
  if (key !== undefined) headers['Idempotency-Key'] = key;
  const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? {} : (JSON.parse(text) as Answer['body']) };
}

/** Sends a keyed request again as a client does: after each 409 `idempotency_key_in_progress`, it waits what Retry-After says. */
async function retryUntilSettled(send: () => Promise<Answer>): Promise<Answer> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const answer = await send();
    if (answer.body.error?.code !== 'idempotency_key_in_progress') return answer;
    await delay(Number(answer.headers.get('retry-after')) * 1000);
  }
  throw new Error('the key stayed in progress');
}

describe('Idempotency-Key across a crash between COMMIT and the key\'s completion', () => {
  let api: RunningApi;
  let token: string;
  let userId: string;

  beforeAll(async () => {
    api = await startBuiltApi();
    const account = newCredentials();
    const json = { 'Content-Type': 'application/json' };
    const registered = await fetch(`${api.url}/v2/auth/register`, { method: 'POST', headers: json, body: JSON.stringify(account) });
    expect(registered.status).toBe(201);
    userId = ((await registered.json()) as { data: { id: string } }).data.id;
    const login = await fetch(`${api.url}/v2/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
    token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
  }, 60_000);
  afterAll(async () => {
    await api.stop();
  });

  /** Sends the keyed request to a built API that crashes at `point`; resolves once that process is gone. */
  async function crashAt(
    point: 'after_commit' | 'before_completion',
    method: string,
    path: string,
    body: unknown,
    key: string,
    headers: Record<string, string> = {},
  ): Promise<void> {
    const crashing = await startBuiltApi({ IDEMPOTENCY_TEST_CRASH: point });
    const exited = once(crashing.process, 'exit');
    await expect(call(crashing.url, token, method, path, body, key, headers)).rejects.toThrow();
    const [, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect(signal).toBe('SIGKILL');
  }

  async function resourcesNamed(name: string): Promise<Array<Record<string, unknown> & { id: string }>> {
    const list = await call(api.url, token, 'GET', `/v2/resources?limit=100`);
    expect(list.status).toBe(200);
    return (list.body.data as unknown as Array<Record<string, unknown> & { id: string; name: string }>).filter((item) => item.name === name);
  }

  it('crash after the answer is in PostgreSQL, before Redis has it: the retry after the lease replays it and creates nothing', async () => {
    const key = randomUUID();
    const body = { name: `crash-replay-${key}`, tags: ['crash'] };
    await crashAt('before_completion', 'POST', '/v2/resources', body, key);
    expect(await resourcesNamed(body.name)).toHaveLength(1);

    const retry = await retryUntilSettled(() => call(api.url, token, 'POST', '/v2/resources', body, key));
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('etag')).toBe('"1"');
    expect(retry.headers.get('content-type')).toMatch(/^application\/json/);
    const [created] = await resourcesNamed(body.name);
    const read = await call(api.url, token, 'GET', `/v2/resources/${created.id}`);
    expect(retry.body).toEqual(read.body);
    expect(await resourcesNamed(body.name)).toHaveLength(1);

    // Redis now has the answer: the next retry replays it from there, the same.
    const again = await call(api.url, token, 'POST', '/v2/resources', body, key);
    expect({ status: again.status, replayed: again.headers.get('idempotent-replayed'), body: again.body }).toEqual({
      status: 201,
      replayed: 'true',
      body: retry.body,
    });
    expect(await resourcesNamed(body.name)).toHaveLength(1);
  }, 60_000);

  it('crash right after COMMIT, before the answer was made: the retry is told the write took effect, and creates nothing', async () => {
    const key = randomUUID();
    const body = { name: `crash-lost-${key}` };
    await crashAt('after_commit', 'POST', '/v2/resources', body, key);
    expect(await resourcesNamed(body.name)).toHaveLength(1);

    // The first retry learns it from PostgreSQL, the next from Redis, which it settled.
    const first = await retryUntilSettled(() => call(api.url, token, 'POST', '/v2/resources', body, key));
    const second = await call(api.url, token, 'POST', '/v2/resources', body, key);
    for (const retry of [first, second]) {
      expect(retry.status).toBe(409);
      expect(retry.body.error).toEqual({
        code: 'idempotency_key_answer_lost',
        message: expect.stringMatching(/took effect, but its answer was lost/),
      });
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await resourcesNamed(body.name)).toHaveLength(1);
  }, 60_000);

  it('a PATCH with If-Match: the retry, refused by the version the first moved on, replays the first answer instead', async () => {
    const created = await call(api.url, token, 'POST', '/v2/resources', { name: `crash-patch-${randomUUID()}` });
    expect(created.status).toBe(201);
    const path = `/v2/resources/${created.body.data?.id}`;
    const key = randomUUID();
    const patch = { description: 'patched once' };
    await crashAt('before_completion', 'PATCH', path, patch, key, { 'If-Match': '"1"' });
    const read = await call(api.url, token, 'GET', path);
    expect(read.headers.get('etag')).toBe('"2"');

    const retry = await retryUntilSettled(() => call(api.url, token, 'PATCH', path, patch, key, { 'If-Match': '"1"' }));
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('etag')).toBe('"2"');
    expect(retry.body).toEqual(read.body);
    expect((await call(api.url, token, 'GET', path)).headers.get('etag')).toBe('"2"');
  }, 60_000);

  it('a write outside a transaction (an API key) is covered too: the retry replays the record without its secret, and makes no second key', async () => {
    const key = randomUUID();
    const body = { name: `crash-key-${key}`, scopes: ['read:resources'] };
    await crashAt('before_completion', 'POST', '/v2/api-keys', body, key);
    const keysNamed = async () => {
      const list = await call(api.url, token, 'GET', '/v2/api-keys');
      return (list.body.data as unknown as Array<{ id: string; name: string }>).filter((item) => item.name === body.name);
    };
    const [made] = await keysNamed();
    expect(made).toBeDefined();

    const retry = await retryUntilSettled(() => call(api.url, token, 'POST', '/v2/api-keys', body, key));
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('idempotent-secret-omitted')).toBe('key');
    expect(retry.body.data?.id).toBe(made.id);
    expect(retry.body.data).not.toHaveProperty('key');
    expect(await keysNamed()).toHaveLength(1);
  }, 60_000);

  it('a different request with the key, once Redis lost the key, is 422 idempotency_key_reused and writes nothing', async () => {
    const key = randomUUID();
    const body = { name: `crash-reused-${key}` };
    await crashAt('before_completion', 'POST', '/v2/resources', body, key);
    // Redis lost every key of the account (a failover, say): only PostgreSQL knows the key was used.
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { keyPrefix: `${process.env.REDIS_PREFIX}:` });
    try {
      const names = await redis.keys(`${process.env.REDIS_PREFIX}:idempotency:${userId}:*`);
      expect(names).not.toHaveLength(0);
      await redis.del(...names.map((name) => name.slice(`${process.env.REDIS_PREFIX}:`.length)));
    } finally {
      await redis.quit();
    }
    const other = { name: `crash-reused-other-${key}` };
    const reused = await call(api.url, token, 'POST', '/v2/resources', other, key);
    expect(reused.status).toBe(422);
    expect(reused.body.error?.code).toBe('idempotency_key_reused');
    expect(await resourcesNamed(other.name)).toHaveLength(0);
    expect(await resourcesNamed(body.name)).toHaveLength(1);
  }, 60_000);
});

describe('Idempotency-Key when Redis fails the completion write', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp();
    const account = newCredentials();
    const json = { 'Content-Type': 'application/json' };
    await fetch(`${t.url}/v2/auth/register`, { method: 'POST', headers: json, body: JSON.stringify(account) });
    const login = await fetch(`${t.url}/v2/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
    token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
  });
  afterAll(async () => {
    await t.close();
  });

  it('the first answer goes out; a retry after the lease replays it from PostgreSQL and creates nothing', async () => {
    const store = t.app.get(IdempotencyStore);
    const complete = jest.spyOn(store, 'complete').mockRejectedValueOnce(new Error('Command timed out'));
    const key = randomUUID();
    const body = { name: `redis-lost-${key}` };
    try {
      const first = await call(t.url, token, 'POST', '/v2/resources', body, key);
      expect(first.status).toBe(201);
      expect(complete).toHaveBeenCalledTimes(1);

      const retry = await retryUntilSettled(() => call(t.url, token, 'POST', '/v2/resources', body, key));
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual(first.body);
      const list = await call(t.url, token, 'GET', `/v2/resources?limit=100`);
      expect((list.body.data as unknown as Array<{ name: string }>).filter((item) => item.name === body.name)).toHaveLength(1);
    } finally {
      complete.mockRestore();
    }
  }, 30_000);
});
