import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { createTestApp, createUser, TestApp, TestUser } from './support';
import { IdempotencyStore } from '../apps/api/src/platform/idempotency/idempotency.store';
import { requestFingerprint } from '../apps/api/src/platform/idempotency/request-fingerprint';
import { bearer } from './resources.fixtures';

/** Idempotency-Key on POST and PATCH: docs/api.md#idempotency. */
describe('Idempotency-Key', () => {
  let t: TestApp;
  let user: TestUser;
  let other: TestUser;
  let sequence = 0;

  beforeAll(async () => {
    t = await createTestApp();
    user = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    other = await createUser(t.http, { db: t.db, plan: 'enterprise' });
  });
  afterAll(async () => {
    await t.close();
  });

  function newKey(): string {
    sequence += 1;
    return `key-${Date.now()}-${sequence}`;
  }

  async function countNamed(name: string): Promise<number> {
    const [row] = await t.app.get(DataSource).query('SELECT count(*)::int AS n FROM resources WHERE name = $1', [name]);
    return row.n as number;
  }

  function post(key: string, body: Record<string, unknown>, as = user) {
    return t.http.post('/v2/resources').set(bearer(as)).set('Idempotency-Key', key).send(body);
  }

  it('replays the first answer to the same request, creating one resource', async () => {
    const key = newKey();
    const first = await post(key, { name: 'idem-once', tags: ['a'] });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await post(key, { tags: ['a'], name: 'idem-once' });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers.etag).toBe('"1"');
    expect(second.headers['content-type']).toMatch(/^application\/json/);
    expect(second.body).toEqual(first.body);
    expect(await countNamed('idem-once')).toBe(1);
  });

  it('creates again without a key', async () => {
    await t.http.post('/v2/resources').set(bearer(user)).send({ name: 'idem-none' }).expect(201);
    await t.http.post('/v2/resources').set(bearer(user)).send({ name: 'idem-none' }).expect(201);
    expect(await countNamed('idem-none')).toBe(2);
  });

  it('answers 422 idempotency_key_reused to a different body or path with the same key', async () => {
    const key = newKey();
    const first = await post(key, { name: 'idem-first' });
    expect(first.status).toBe(201);
    const otherBody = await post(key, { name: 'idem-second' });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error.code).toBe('idempotency_key_reused');
    const otherPath = await t.http
      .patch(`/v2/resources/${first.body.data.id}`)
      .set(bearer(user))
      .set('Idempotency-Key', key)
      .send({ name: 'idem-first' });
    expect(otherPath.status).toBe(422);
    expect(await countNamed('idem-second')).toBe(0);
  });

  it('scopes keys to the account', async () => {
    const key = newKey();
    const mine = await post(key, { name: 'idem-scoped' });
    const theirs = await post(key, { name: 'idem-scoped' }, other);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('answers 409 idempotency_key_in_progress while the first request is still running', async () => {
    const key = newKey();
    const body = { name: 'idem-running' };
    const claim = await t.app.get(IdempotencyStore).claim(user.id, key, requestFingerprint('POST', '/v2/resources', body));
    expect(claim.kind).toBe('claimed');
    const res = await post(key, body);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_key_in_progress');
    expect(await countNamed('idem-running')).toBe(0);
  });

  it('runs only one of two concurrent requests with one key', async () => {
    const key = newKey();
    const answers = await Promise.all([post(key, { name: 'idem-race' }), post(key, { name: 'idem-race' })]);
    expect(await countNamed('idem-race')).toBe(1);
    const statuses = answers.map((res) => res.status).sort();
    expect([[201, 201], [201, 409]]).toContainEqual(statuses);
    for (const res of answers) {
      if (res.status === 409) expect(res.body.error.code).toBe('idempotency_key_in_progress');
    }
  });

  it('does not keep a validation failure: the corrected request runs with the same key', async () => {
    const key = newKey();
    const invalid = await post(key, { name: '' });
    expect(invalid.status).toBe(400);
    const fixed = await post(key, { name: 'idem-fixed' });
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keeps and replays a refusal made while handling the request', async () => {
    const key = newKey();
    const path = '/v2/resources/res_01JD3Q0F6K8W2M4N6P8R0T2V4X';
    const first = await t.http.patch(path).set(bearer(user)).set('Idempotency-Key', key).send({ name: 'x' });
    expect(first.status).toBe(404);
    const again = await t.http.patch(path).set(bearer(user)).set('Idempotency-Key', key).send({ name: 'x' });
    expect(again.status).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('replays PATCH and bulk answers', async () => {
    const created = await post(newKey(), { name: 'idem-patch' });
    const key = newKey();
    const path = `/v2/resources/${created.body.data.id}`;
    const first = await t.http.patch(path).set(bearer(user)).set('Idempotency-Key', key).send({ status: 'archived' });
    expect(first.headers.etag).toBe('"2"');
    const again = await t.http.patch(path).set(bearer(user)).set('Idempotency-Key', key).send({ status: 'archived' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.etag).toBe('"2"');
    expect(again.body).toEqual(first.body);

    const bulkKey = newKey();
    const bulk = { resources: [{ name: 'idem-bulk' }, { name: 'idem-bulk' }] };
    const bulkFirst = await t.http.post('/v2/resources/bulk').set(bearer(user)).set('Idempotency-Key', bulkKey).send(bulk);
    const bulkAgain = await t.http.post('/v2/resources/bulk').set(bearer(user)).set('Idempotency-Key', bulkKey).send(bulk);
    expect(bulkAgain.status).toBe(201);
    expect(bulkAgain.headers['idempotent-replayed']).toBe('true');
    expect(bulkAgain.body).toEqual(bulkFirst.body);
    expect(await countNamed('idem-bulk')).toBe(2);
  });

  it('applies to every authenticated POST and PATCH route', async () => {
    const key = newKey();
    const body = { profile: { first_name: 'Idem' } };
    await t.http.patch('/v2/users/me').set(bearer(user)).set('Idempotency-Key', key).send(body).expect(200);
    const again = await t.http.patch('/v2/users/me').set(bearer(user)).set('Idempotency-Key', key).send(body);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('refuses a key longer than 255 characters and accepts 255', async () => {
    const tooLong = await post('k'.repeat(256), { name: 'idem-long' });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('invalid_request');
    await post('k'.repeat(255), { name: 'idem-long' }).expect(201);
    expect(await countNamed('idem-long')).toBe(1);
  });

  it('never stores a one-time secret: an API key replay answers the record without `key` and says so', async () => {
    const key = newKey();
    const body = { name: 'replayed key', scopes: ['read:resources'] };
    const first = await t.http.post('/v2/api-keys').set(bearer(user)).set('Idempotency-Key', key).send(body);
    expect(first.status).toBe(201);
    const secret = first.body.data.key as string;
    expect(secret).toMatch(/^sk_test_/);
    expect(first.headers['idempotent-secret-omitted']).toBeUndefined();

    const replay = await t.http.post('/v2/api-keys').set(bearer(user)).set('Idempotency-Key', key).send(body);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['idempotent-secret-omitted']).toBe('key');
    expect(replay.body.data).toEqual({ ...first.body.data, key: undefined });
    expect(replay.body.data).not.toHaveProperty('key');

    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const names = await redis.keys(`${process.env.REDIS_PREFIX}:idempotency:${user.id}:*`);
      const stored = await Promise.all(names.map((name) => redis.get(name)));
      expect(stored.join('\n')).toContain(first.body.data.id);
      expect(stored.join('\n')).not.toContain(secret);
    } finally {
      await redis.quit();
    }
  });

  it('leaves GET alone', async () => {
    const res = await t.http.get('/v2/resources').set(bearer(user)).set('Idempotency-Key', newKey());
    expect(res.status).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });
});
