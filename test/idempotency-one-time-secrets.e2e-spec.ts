import { createHash, randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { createTestApp, createUser, TestApp, TestUser } from './support';
import { bearer } from './resources.fixtures';

interface DocumentedOperation {
  security?: unknown[];
  responses: Record<string, unknown>;
}
interface OpenApiPaths {
  paths: Record<string, Record<string, DocumentedOperation>>;
}

interface CreateRequest {
  path: string;
  body: Record<string, unknown>;
}

/** A field of an answer's `data` holds a secret when its name or its value says so. */
const SECRET_FIELD = /secret|^key$|token/i;
const SECRET_VALUE = /^(sk_(test|live)_|whsec_)[A-Za-z0-9+/=_-]{20,}$/;

/**
 * Every create operation an idempotency key can replay (an authenticated POST answering 201),
 * walked from the served OpenAPI document: a one-time secret in any of their answers is shown
 * to the first request only and never written to Redis, whatever the operation.
 */
describe('Idempotency-Key and one-time secrets, on every create operation', () => {
  let t: TestApp;
  let user: TestUser;
  let member: TestUser;
  let redis: Redis;

  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    t = await createTestApp();
    user = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    member = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    await redis.quit();
    await t.close();
    delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
  });

  async function newOrganizationId(): Promise<string> {
    const slug = `org-${randomBytes(4).toString('hex')}`;
    const created = await t.http.post('/v2/organizations').set(bearer(user)).send({ name: slug, slug }).expect(201);
    return created.body.data.id as string;
  }

  /** A valid request for each create operation, by its documented path. */
  const requests: Record<string, () => CreateRequest | Promise<CreateRequest>> = {
    '/v2/api-keys': () => ({ path: '/v2/api-keys', body: { name: 'walked', scopes: ['read:resources'] } }),
    '/v2/oauth-clients': () => ({
      path: '/v2/oauth-clients',
      body: { name: 'walked', redirect_uris: ['https://app.example.com/callback'], scopes: ['read:resources'] },
    }),
    '/v2/webhooks': () => ({ path: '/v2/webhooks', body: { url: 'https://hooks.example.com/in', events: ['resource.created'] } }),
    '/v2/resources': () => ({ path: '/v2/resources', body: { name: 'walked' } }),
    '/v2/resources/bulk': () => ({ path: '/v2/resources/bulk', body: { resources: [{ name: 'walked' }] } }),
    '/v2/organizations': () => {
      const slug = `walk-${randomBytes(4).toString('hex')}`;
      return { path: '/v2/organizations', body: { name: slug, slug } };
    },
    '/v2/api-keys/{id}/roll': async () => {
      const created = await t.http.post('/v2/api-keys').set(bearer(user)).send({ name: 'rolled', scopes: ['read:resources'] }).expect(201);
      return { path: `/v2/api-keys/${created.body.data.id as string}/roll`, body: { expires_in: 60 } };
    },
    '/v2/organizations/{id}/members': async () => ({
      path: `/v2/organizations/${await newOrganizationId()}/members`,
      body: { user_id: member.id, role: 'member' },
    }),
  };

  function secretsIn(data: unknown): string[] {
    if (typeof data !== 'object' || data === null) return [];
    return Object.entries(data as Record<string, unknown>)
      .filter(([name, value]) => typeof value === 'string' && (SECRET_FIELD.test(name) || SECRET_VALUE.test(value)))
      .map(([, value]) => value as string);
  }

  /** The stored answer of one key, and every string value under the run's prefix. */
  async function redisContents(key: string): Promise<{ answer: string | null; everything: string }> {
    const answer = await redis.get(`${process.env.REDIS_PREFIX}:idempotency:${user.id}:${createHash('sha256').update(key).digest('base64url')}`);
    const names = await redis.keys(`${process.env.REDIS_PREFIX}:*`);
    const types = await Promise.all(names.map((name) => redis.type(name)));
    const values = await Promise.all(names.filter((_, index) => types[index] === 'string').map((name) => redis.get(name)));
    return { answer, everything: values.join('\n') };
  }

  it('covers every authenticated POST answering 201 in the document', async () => {
    const document = (await (await fetch(`${t.url}/openapi.json`)).json()) as OpenApiPaths;
    const creates = Object.entries(document.paths)
      .filter(([, item]) => item.post && '201' in item.post.responses && (item.post.security?.length ?? 0) > 0)
      .map(([path]) => (path.startsWith('/v2') ? path : `/v2${path}`));
    expect(creates.sort()).toEqual(Object.keys(requests).sort());
  });

  it.each(['/v2/api-keys', '/v2/api-keys/{id}/roll', '/v2/oauth-clients', '/v2/webhooks', '/v2/resources', '/v2/resources/bulk', '/v2/organizations', '/v2/organizations/{id}/members'])(
    '%s: the replay omits the secret it showed once, and Redis never holds it',
    async (operation) => {
      const { path, body } = await requests[operation]();
      const key = `walk-${randomBytes(8).toString('hex')}`;
      const first = await t.http.post(path).set(bearer(user)).set('Idempotency-Key', key).send(body);
      expect(first.status).toBe(201);
      const secrets = secretsIn(first.body.data);

      const replay = await t.http.post(path).set(bearer(user)).set('Idempotency-Key', key).send(body);
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      for (const secret of secrets) expect(JSON.stringify(replay.body)).not.toContain(secret);
      if (secrets.length > 0) expect(replay.headers['idempotent-secret-omitted']).toEqual(expect.any(String));
      else expect(replay.headers['idempotent-secret-omitted']).toBeUndefined();

      const { answer, everything } = await redisContents(key);
      expect(answer).toContain('"state":"done"');
      for (const secret of secrets) expect(everything).not.toContain(secret);
    },
  );

  it('a webhook deleted after its create is not replayed with its secret', async () => {
    const key = `walk-${randomBytes(8).toString('hex')}`;
    const body = { url: 'https://hooks.example.com/deleted', events: ['resource.created'] };
    const first = await t.http.post('/v2/webhooks').set(bearer(user)).set('Idempotency-Key', key).send(body).expect(201);
    const secret = first.body.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    await t.http.delete(`/v2/webhooks/${first.body.data.id}`).set(bearer(user)).expect(204);

    const replay = await t.http.post('/v2/webhooks').set(bearer(user)).set('Idempotency-Key', key).send(body);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-secret-omitted']).toBe('secret');
    expect(replay.body.data).not.toHaveProperty('secret');
    expect(replay.body.data.id).toBe(first.body.data.id);
  });
});
