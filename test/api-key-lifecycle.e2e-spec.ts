import { DataSource } from 'typeorm';
import { connectTierApi, createUser, errorFields, errorMessagesFor, expectError, ApiUnderTest, TestUser, waitUntil } from './support';

/**
 * The lifecycle of an API key (decisions §14, docs/api.md#api-keys): `expires_at` on create,
 * `last_used_at`, an expired key refused as such, and `POST /v2/api-keys/{id}/roll`.
 */
describe('API key lifecycle', () => {
  let t: ApiUnderTest;
  let db: DataSource;

  beforeAll(async () => {
    t = await connectTierApi();
    db = t.db;
  });
  afterAll(() => t.close());

  const bearer = (user: TestUser): [string, string] => ['Authorization', `Bearer ${user.accessToken}`];
  const inSeconds = (seconds: number): string => new Date(Date.now() + seconds * 1000).toISOString();

  async function newKey(user: TestUser, extra: Record<string, unknown> = {}): Promise<{ id: string; key: string; expires_at: string | null }> {
    const res = await t.http
      .post('/v2/api-keys')
      .set(...bearer(user))
      .send({ name: 'deploys', scopes: ['read:users', 'write:resources'], ...extra })
      .expect(201);
    return res.body.data;
  }

  const roll = (user: TestUser, id: string, body?: object) => {
    const req = t.http.post(`/v2/api-keys/${id}/roll`).set(...bearer(user));
    return body === undefined ? req : req.send(body);
  };

  const me = (key: string) => t.http.get('/v2/users/me').set('X-API-Key', key);

  describe('expires_at', () => {
    it('is shown on create and in the list, null when none is given', async () => {
      const user = await createUser(t.http);
      const at = inSeconds(3600);
      const timed = await newKey(user, { expires_at: at });
      expect(timed.expires_at).toBe(at);
      const forever = await newKey(user);
      expect(forever.expires_at).toBeNull();
      const listed = (await t.http.get('/v2/api-keys').set(...bearer(user)).expect(200)).body.data as Array<{ id: string; expires_at: string | null }>;
      expect(listed.find((key) => key.id === timed.id)?.expires_at).toBe(at);
      expect(listed.find((key) => key.id === forever.id)?.expires_at).toBeNull();
    });

    it('accepts an offset and two years ahead, less a minute', async () => {
      const user = await createUser(t.http);
      const soon = new Date(Date.now() + 3600_000).toISOString().replace('Z', '+00:00');
      expect((await newKey(user, { expires_at: soon })).expires_at).toBe(new Date(soon).toISOString());
      const far = new Date(Date.now() + 730 * 24 * 3600_000).toISOString();
      expect((await newKey(user, { expires_at: far })).expires_at).toBe(far);
    });

    it.each([
      ['in the past', () => new Date(Date.now() - 1000).toISOString()],
      ['more than two years ahead', () => new Date(Date.now() + 740 * 24 * 3600_000).toISOString()],
      ['not a date-time', () => 'tomorrow'],
      ['a date without a time', () => '2030-01-01'],
      ['a day that does not exist', () => '2027-02-31T00:00:00Z'],
      ['a number', () => 1893456000],
    ])('answers 400 validation_error on expires_at %s', async (_case, value) => {
      const user = await createUser(t.http);
      const res = await t.http
        .post('/v2/api-keys')
        .set(...bearer(user))
        .send({ name: 'k', scopes: ['read:users'], expires_at: value() });
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['expires_at']);
      expect(errorMessagesFor(res, 'expires_at')).toMatch(/RFC 3339.*two years/);
    });

    it('lets the key work until then, and then answers 401 saying it has expired', async () => {
      const user = await createUser(t.http);
      const { key, id } = await newKey(user, { expires_at: inSeconds(1.5) });
      await me(key).expect(200);
      // Twice: the second answer comes from the verified-key cache, which must not outlive the expiry.
      await me(key).expect(200);
      const res = await waitUntil(async () => {
        const answer = await me(key);
        return answer.status === 401 ? answer : undefined;
      });
      expectError(res, 401, 'authentication_required', /has expired/);
      const listed = (await t.http.get('/v2/api-keys').set(...bearer(user)).expect(200)).body.data as Array<{ id: string }>;
      expect(listed.map((entry) => entry.id)).toContain(id);
    });
  });

  describe('last_used_at', () => {
    it('is null until the first use, then the time of a use', async () => {
      const user = await createUser(t.http);
      const { key, id } = await newKey(user);
      const before = (await t.http.get('/v2/api-keys').set(...bearer(user)).expect(200)).body.data as Array<{ id: string; last_used_at: string | null }>;
      expect(before.find((entry) => entry.id === id)?.last_used_at).toBeNull();
      const start = Date.now();
      await me(key).expect(200);
      const after = (await t.http.get('/v2/api-keys').set(...bearer(user)).expect(200)).body.data as Array<{ id: string; last_used_at: string | null }>;
      const used = after.find((entry) => entry.id === id)?.last_used_at;
      expect(new Date(used ?? 0).getTime()).toBeGreaterThanOrEqual(start - 1000);
    });
  });

  describe('POST /v2/api-keys/{id}/roll', () => {
    it('answers 201 with a new key of the same name and scopes; the old one works for a day by default', async () => {
      const user = await createUser(t.http);
      const old = await newKey(user);
      const start = Date.now();
      const res = await roll(user, old.id).expect(201);
      expect(res.body).toEqual({
        data: {
          id: expect.stringMatching(/^key_[0-9A-Z]{26}$/),
          name: 'deploys',
          scopes: ['read:users', 'write:resources'],
          key: expect.stringMatching(/^sk_test_[0-9A-Za-z]{43}$/),
          prefix: expect.any(String),
          created_at: expect.any(String),
          last_used_at: null,
          expires_at: null,
        },
      });
      expect(res.body.data.id).not.toBe(old.id);
      await me(old.key).expect(200);
      await me(res.body.data.key).expect(200);
      const listed = (await t.http.get('/v2/api-keys').set(...bearer(user)).expect(200)).body.data as Array<{ id: string; expires_at: string | null }>;
      const oldExpiry = new Date(listed.find((key) => key.id === old.id)?.expires_at ?? 0).getTime();
      expect(oldExpiry).toBeGreaterThanOrEqual(start + 86_400_000 - 1000);
      expect(oldExpiry).toBeLessThanOrEqual(Date.now() + 86_400_000 + 1000);
    });

    it('with expires_in 0 stops the old key at once, even on a replica that had it cached', async () => {
      const user = await createUser(t.http);
      const old = await newKey(user);
      await me(old.key).expect(200);
      const res = await roll(user, old.id, { expires_in: 0 }).expect(201);
      expectError(await me(old.key), 401, 'authentication_required', /has expired/);
      await me(res.body.data.key).expect(200);
    });

    it('with expires_in 1 keeps the old key for that second only (through Node fetch)', async () => {
      const user = await createUser(t.http);
      const old = await newKey(user);
      const answer = await fetch(`${t.url}/v2/api-keys/${old.id}/roll`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${user.accessToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ expires_in: 1 }),
      });
      expect(answer.status).toBe(201);
      const rolled = (await answer.json()) as { data: { key: string } };
      await me(old.key).expect(200);
      await waitUntil(async () => ((await me(old.key)).status === 401 ? true : undefined));
      await me(rolled.data.key).expect(200);
    });

    it('never lengthens the life of a key that expires sooner', async () => {
      const user = await createUser(t.http);
      const at = inSeconds(60);
      const old = await newKey(user, { expires_at: at });
      await roll(user, old.id, { expires_in: 3600 }).expect(201);
      const [row] = await db.query('SELECT expires_at FROM api_keys WHERE id = $1', [old.id]);
      expect((row.expires_at as Date).toISOString()).toBe(at);
    });

    it('answers 404 not_found for a deleted key and for an expired one', async () => {
      const user = await createUser(t.http);
      const deleted = await newKey(user);
      await t.http.delete(`/v2/api-keys/${deleted.id}`).set(...bearer(user)).expect(204);
      expectError(await roll(user, deleted.id), 404, 'not_found', /was deleted/);
      const expired = await newKey(user);
      await roll(user, expired.id, { expires_in: 0 }).expect(201);
      expectError(await roll(user, expired.id), 404, 'not_found', /has expired/);
    });

    it("answers 404 for an unknown key, a malformed id and another user's key", async () => {
      const user = await createUser(t.http);
      const other = await createUser(t.http);
      const theirs = await newKey(other);
      expectError(await roll(user, 'key_01JD3Q0F6K8W2M4N6P8R0T2V4X'), 404, 'resource_not_found');
      expectError(await roll(user, 'nope'), 404, 'resource_not_found');
      expectError(await roll(user, theirs.id), 404, 'resource_not_found');
      await me(theirs.key).expect(200);
    });

    it.each([
      ['a negative expires_in', { expires_in: -1 }],
      ['expires_in over seven days', { expires_in: 604_801 }],
      ['a fractional expires_in', { expires_in: 1.5 }],
      ['expires_in as text', { expires_in: '60' }],
      ['an unknown field', { name: 'renamed' }],
    ])('answers 400 validation_error for %s', async (_case, body) => {
      const user = await createUser(t.http);
      const old = await newKey(user);
      const res = await roll(user, old.id, body);
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual([Object.keys(body)[0]]);
      await me(old.key).expect(200);
    });

    it('accepts seven days exactly', async () => {
      const user = await createUser(t.http);
      const old = await newKey(user);
      await roll(user, old.id, { expires_in: 604_800 }).expect(201);
    });

    it('needs a credential (401) and a JWT or session login: an API key is 403', async () => {
      const user = await createUser(t.http);
      const old = await newKey(user);
      expectError(await t.http.post(`/v2/api-keys/${old.id}/roll`), 401, 'authentication_required');
      expectError(await t.http.post(`/v2/api-keys/${old.id}/roll`).set('X-API-Key', old.key), 403, 'insufficient_permissions', /JWT|session/);
    });

    it('with an Idempotency-Key, replays the new key without its secret instead of rolling twice', async () => {
      const user = await createUser(t.http);
      const old = await newKey(user);
      const first = await roll(user, old.id, { expires_in: 60 }).set('Idempotency-Key', `roll-${old.id}`).expect(201);
      const again = await roll(user, old.id, { expires_in: 60 }).set('Idempotency-Key', `roll-${old.id}`).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.data.id).toBe(first.body.data.id);
      expect(again.body.data.key).toBeUndefined();
      const [{ count }] = await db.query('SELECT count(*)::int AS count FROM api_keys WHERE user_id = $1', [user.id]);
      expect(count).toBe(2);
    });
  });
});
