import { DataSource } from 'typeorm';
import { createHash } from 'node:crypto';
import { ApiKeyRepository } from '../apps/api/src/api-keys/api-key.repository';
import { createTestApp, createUser, errorFields, expectError, TestApp, TestUser } from './support';

/** API keys: POST/GET/DELETE /v2/api-keys and the X-API-Key credential (docs/api.md#api-keys). */

describe('API keys', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t.close();
  });

  const bearer = (user: TestUser): [string, string] => ['Authorization', `Bearer ${user.accessToken}`];
  const createKey = (user: TestUser, body: unknown) =>
    t.http
      .post('/v2/api-keys')
      .set(...bearer(user))
      .send(body as object);

  async function newKey(user: TestUser, scopes: string[] = ['read:users']): Promise<{ id: string; key: string }> {
    const res = await createKey(user, { name: 'test key', scopes }).expect(201);
    return res.body.data;
  }

  async function sessionOf(user: TestUser): Promise<{ cookie: string; csrf: string }> {
    const res = await t.http.post('/v2/session/login').send({ email: user.email, password: user.password }).expect(200);
    const cookie = (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    return { cookie, csrf: res.body.data.csrf_token };
  }

  describe('POST /v2/api-keys', () => {
    it('answers 201 with the record and its secret, once, storing only a hash', async () => {
      const user = await createUser(t.http);
      const res = await createKey(user, { name: 'CI deploys', scopes: ['read:resources', 'write:resources'] });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        data: {
          id: expect.stringMatching(/^key_[0-9A-Z]{26}$/),
          name: 'CI deploys',
          scopes: ['read:resources', 'write:resources'],
          key: expect.stringMatching(/^sk_test_[0-9A-Za-z]{43}$/),
          prefix: expect.any(String),
          created_at: expect.any(String),
          last_used_at: null,
          expires_at: null,
        },
      });
      const { key, prefix, id, created_at } = res.body.data;
      expect(key.startsWith(prefix)).toBe(true);
      expect(prefix.length).toBeLessThan(20);
      expect(new Date(created_at).toISOString()).toBe(created_at);
      const rows: Array<Record<string, unknown>> = await db.query('SELECT * FROM api_keys WHERE id = $1', [id]);
      expect(rows).toHaveLength(1);
      expect(rows[0].secret_hash).toBe(createHash('sha256').update(key).digest('hex'));
      expect(JSON.stringify(rows[0])).not.toContain(key);
    });

    it('is allowed with a session login (with its CSRF token)', async () => {
      const user = await createUser(t.http);
      const session = await sessionOf(user);
      const res = await t.http
        .post('/v2/api-keys')
        .set('Cookie', session.cookie)
        .set('X-CSRF-Token', session.csrf)
        .send({ name: 'from the browser', scopes: ['read:users'] });
      expect(res.status).toBe(201);
      expect(res.body.data.key).toMatch(/^sk_test_/);
    });

    it('refuses an API key caller with 403, whatever its scopes', async () => {
      const user = await createUser(t.http);
      const { key } = await newKey(user, ['read:users', 'write:users']);
      const res = await t.http.post('/v2/api-keys').set('X-API-Key', key).send({ name: 'child', scopes: ['read:users'] });
      expectError(res, 403, 'insufficient_permissions', /JWT|session/);
    });

    it('needs a credential', async () => {
      const res = await t.http.post('/v2/api-keys').send({ name: 'x', scopes: ['read:users'] });
      expectError(res, 401, 'authentication_required');
    });

    it.each([
      ['name missing', { scopes: ['read:users'] }, ['name']],
      ['name empty', { name: '', scopes: ['read:users'] }, ['name']],
      ['name of 101 characters', { name: 'n'.repeat(101), scopes: ['read:users'] }, ['name']],
      ['name not a string', { name: 7, scopes: ['read:users'] }, ['name']],
      ['scopes missing', { name: 'k' }, ['scopes']],
      ['scopes empty', { name: 'k', scopes: [] }, ['scopes']],
      ['scopes not an array', { name: 'k', scopes: 'read:users' }, ['scopes']],
      ['an unknown scope', { name: 'k', scopes: ['read:users', 'admin:all'] }, ['scopes']],
      ['a repeated scope', { name: 'k', scopes: ['read:users', 'read:users'] }, ['scopes']],
      ['an unknown field', { name: 'k', scopes: ['read:users'], color: 'red' }, ['color']],
      ['a read-only field', { name: 'k', scopes: ['read:users'], key: 'sk_test_mine' }, ['key']],
      ['every field wrong at once', { name: '', scopes: [], id: 'key_x' }, ['id', 'name', 'scopes']],
    ])('answers 400 validation_error for %s', async (_case, body, fields) => {
      const user = await createUser(t.http);
      const res = await createKey(user, body);
      expectError(res, 400, 'validation_error');
      expect(errorFields(res).sort()).toEqual(fields);
    });

    it('accepts a name of exactly 100 characters and every known scope', async () => {
      const user = await createUser(t.http);
      const scopes = ['resources', 'organizations', 'users', 'webhooks', 'events'].flatMap((area) => [`read:${area}`, `write:${area}`]);
      const res = await createKey(user, { name: 'n'.repeat(100), scopes });
      expect(res.status).toBe(201);
      expect(res.body.data.scopes).toEqual(scopes);
    });
  });

  describe('X-API-Key', () => {
    it('authenticates as the owner of the key and records its use', async () => {
      const user = await createUser(t.http);
      const { key, id } = await newKey(user);
      const me = await t.http.get('/v2/users/me').set('X-API-Key', key);
      expect(me.status).toBe(200);
      expect(me.body.data.id).toBe(user.id);
      const list = await t.http.get('/v2/api-keys').set(...bearer(user)).expect(200);
      const listed = list.body.data.find((entry: { id: string }) => entry.id === id);
      expect(listed.last_used_at).toEqual(expect.any(String));
    });

    it('reads a key not yet cached from PostgreSQL once for concurrent first requests', async () => {
      const user = await createUser(t.http);
      const { key } = await newKey(user);
      const reads = jest.spyOn(t.app.get(ApiKeyRepository), 'findBySecretHash');
      try {
        const answers = await Promise.all(Array.from({ length: 8 }, () => t.http.get('/v2/users/me').set('X-API-Key', key)));
        expect(answers.map((res) => res.status)).toEqual(Array(8).fill(200));
        expect(reads).toHaveBeenCalledTimes(1);
      } finally {
        reads.mockRestore();
      }
    });

    it('refuses a key of the other environment with a message that says so', async () => {
      const res = await t.http.get('/v2/users/me').set('X-API-Key', `sk_live_${'A1b2C3d4E5'.repeat(4)}xyz`);
      expectError(res, 401, 'authentication_required', /live.*test/);
    });

    it('refuses an unknown key and a malformed one', async () => {
      expectError(await t.http.get('/v2/users/me').set('X-API-Key', `sk_test_${'Z9'.repeat(21)}Q`), 401, 'authentication_required', /not valid/);
      expectError(await t.http.get('/v2/users/me').set('X-API-Key', 'not-a-key'), 401, 'authentication_required', /malformed/);
      expectError(await t.http.get('/v2/users/me').set('X-API-Key', ''), 401, 'authentication_required');
    });
  });

  describe('GET /v2/api-keys', () => {
    it("lists only the caller's live keys, newest first, without secrets, with offset meta", async () => {
      const user = await createUser(t.http);
      const other = await createUser(t.http);
      const first = await newKey(user);
      const second = await newKey(user, ['write:users']);
      await newKey(other);
      const res = await t.http.get('/v2/api-keys').set(...bearer(user));
      expect(res.status).toBe(200);
      expect(res.body.data.map((key: { id: string }) => key.id)).toEqual([second.id, first.id]);
      for (const key of res.body.data) {
        expect(Object.keys(key).sort()).toEqual(['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'scopes']);
      }
      expect(res.body.meta).toEqual({
        page: 1,
        per_page: 20,
        total: 2,
        total_pages: 1,
        links: {
          first: '/v2/api-keys?page=1&per_page=20',
          prev: null,
          next: null,
          last: '/v2/api-keys?page=1&per_page=20',
        },
      });
    });

    it('pages with page and per_page', async () => {
      const user = await createUser(t.http);
      const keys = [await newKey(user), await newKey(user), await newKey(user)];
      const res = await t.http.get('/v2/api-keys?page=2&per_page=2').set(...bearer(user)).expect(200);
      expect(res.body.data.map((key: { id: string }) => key.id)).toEqual([keys[0].id]);
      expect(res.body.meta).toMatchObject({ page: 2, per_page: 2, total: 3, total_pages: 2 });
      expect(res.body.meta.links.prev).toBe('/v2/api-keys?page=1&per_page=2');
      expect(res.body.meta.links.next).toBeNull();
    });

    it.each([
      ['per_page=0', 'per_page'],
      ['per_page=101', 'per_page'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['sort=name', 'sort'],
    ])('answers 400 validation_error for %s', async (query, field) => {
      const user = await createUser(t.http);
      const res = await t.http.get(`/v2/api-keys?${query}`).set(...bearer(user));
      expectError(res, 400, 'validation_error');
      expect(errorFields(res).sort()).toEqual([field]);
    });

    it('refuses an API key caller with 403', async () => {
      const user = await createUser(t.http);
      const { key } = await newKey(user);
      expectError(await t.http.get('/v2/api-keys').set('X-API-Key', key), 403, 'insufficient_permissions');
    });
  });

  describe('DELETE /v2/api-keys/{id}', () => {
    it('revokes the key at once: 204, then 401 on use, gone from the list, 404 on a second delete', async () => {
      const user = await createUser(t.http);
      const { id, key } = await newKey(user);
      await t.http.get('/v2/users/me').set('X-API-Key', key).expect(200);
      const res = await t.http.delete(`/v2/api-keys/${id}`).set(...bearer(user));
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectError(await t.http.get('/v2/users/me').set('X-API-Key', key), 401, 'authentication_required', /revoked/);
      const list = await t.http.get('/v2/api-keys').set(...bearer(user)).expect(200);
      expect(list.body.data).toEqual([]);
      expectError(await t.http.delete(`/v2/api-keys/${id}`).set(...bearer(user)), 404, 'resource_not_found');
    });

    it("answers 404 for another user's key and leaves it working", async () => {
      const owner = await createUser(t.http);
      const stranger = await createUser(t.http);
      const { id, key } = await newKey(owner);
      expectError(await t.http.delete(`/v2/api-keys/${id}`).set(...bearer(stranger)), 404, 'resource_not_found');
      await t.http.get('/v2/users/me').set('X-API-Key', key).expect(200);
    });

    it.each(['key_01JD3Q0F6K8W2M4N6P8R0T2V4X', 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X', 'nonsense'])('answers 404 for %s', async (id) => {
      const user = await createUser(t.http);
      expectError(await t.http.delete(`/v2/api-keys/${id}`).set(...bearer(user)), 404, 'resource_not_found');
    });

    it('refuses an API key caller with 403, even on itself', async () => {
      const user = await createUser(t.http);
      const { id, key } = await newKey(user, ['write:users']);
      expectError(await t.http.delete(`/v2/api-keys/${id}`).set('X-API-Key', key), 403, 'insufficient_permissions');
    });
  });
});
