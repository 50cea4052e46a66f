import { createHash } from 'node:crypto';
import { connectTierApi, createUser, errorFields, expectError, ApiUnderTest, TestUser } from './support';
import { REDIRECT_URI, registerClient, sessionCookie } from './oauth/oauth-flow';

/** OAuth clients: POST/GET/DELETE /v2/oauth-clients (docs/api.md#oauth). */
describe('OAuth clients', () => {
  let t: ApiUnderTest;
  let owner: TestUser;

  beforeAll(async () => {
    t = await connectTierApi();
    owner = await createUser(t.http);
  });
  afterAll(() => t.close());

  const bearer = (user: TestUser): [string, string] => ['Authorization', `Bearer ${user.accessToken}`];
  const create = (body: Record<string, unknown>, user = owner) => t.http.post('/v2/oauth-clients').set(...bearer(user)).send(body);
  const valid = { name: 'Acme dashboard', redirect_uris: [REDIRECT_URI], scopes: ['read:resources'] };

  describe('POST /v2/oauth-clients', () => {
    it('registers a confidential client by default: 201, its secret once, stored only as a hash', async () => {
      const res = await create(valid);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        data: {
          id: expect.stringMatching(/^cli_[0-9A-Z]{26}$/),
          name: 'Acme dashboard',
          redirect_uris: [REDIRECT_URI],
          scopes: ['read:resources'],
          confidential: true,
          client_secret: expect.stringMatching(/^ocs_[0-9A-Za-z]{43}$/),
          created_at: expect.any(String),
        },
      });
      const rows: Array<{ secret_hash: string }> = await t.db
        .query('SELECT secret_hash FROM oauth_clients WHERE id = $1', [res.body.data.id]);
      expect(rows[0].secret_hash).toBe(createHash('sha256').update(res.body.data.client_secret).digest('hex'));
    });

    it('registers a public client without a secret', async () => {
      const res = await create({ ...valid, confidential: false });
      expect(res.status).toBe(201);
      expect(res.body.data.confidential).toBe(false);
      expect(res.body.data).not.toHaveProperty('client_secret');
    });

    it('takes http redirect URIs on loopback hosts only', async () => {
      const uris = ['http://127.0.0.1:8123/cb', 'http://localhost/cb', 'http://[::1]:9000/cb', 'https://app.example.com/a?b=c'];
      const res = await create({ ...valid, redirect_uris: uris });
      expect(res.status).toBe(201);
      expect(res.body.data.redirect_uris).toEqual(uris);
    });

    it('works with a session login and its CSRF token', async () => {
      const cookie = await sessionCookie(t.http, owner);
      const login = await t.http.post('/v2/session/login').send({ email: owner.email, password: owner.password });
      const sessionCookieValue = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      expect(cookie).toMatch(/^rms_session=/);
      const res = await t.http
        .post('/v2/oauth-clients')
        .set('Cookie', sessionCookieValue)
        .set('X-CSRF-Token', login.body.data.csrf_token)
        .send(valid);
      expect(res.status).toBe(201);
    });

    it.each([
      ['name missing', { redirect_uris: [REDIRECT_URI], scopes: ['read:resources'] }, ['name']],
      ['name empty', { ...valid, name: '' }, ['name']],
      ['name too long', { ...valid, name: 'x'.repeat(101) }, ['name']],
      ['redirect_uris missing', { name: 'a', scopes: ['read:resources'] }, ['redirect_uris']],
      ['redirect_uris empty', { ...valid, redirect_uris: [] }, ['redirect_uris']],
      ['an http URI off loopback', { ...valid, redirect_uris: ['http://app.example.com/cb'] }, ['redirect_uris']],
      ['a relative URI', { ...valid, redirect_uris: ['/callback'] }, ['redirect_uris']],
      ['a URI with a fragment', { ...valid, redirect_uris: ['https://app.example.com/cb#x'] }, ['redirect_uris']],
      ['a custom scheme', { ...valid, redirect_uris: ['javascript:alert(1)'] }, ['redirect_uris']],
      ['a repeated URI', { ...valid, redirect_uris: [REDIRECT_URI, REDIRECT_URI] }, ['redirect_uris']],
      ['a non-string URI', { ...valid, redirect_uris: [42] }, ['redirect_uris']],
      ['scopes missing', { name: 'a', redirect_uris: [REDIRECT_URI] }, ['scopes']],
      ['an unknown scope', { ...valid, scopes: ['admin'] }, ['scopes']],
      ['no scope', { ...valid, scopes: [] }, ['scopes']],
      ['confidential not a boolean', { ...valid, confidential: 'yes' }, ['confidential']],
      ['an unknown field', { ...valid, grant_types: ['password'] }, ['grant_types']],
      ['a read-only field', { ...valid, id: 'cli_01JD3Q0F6K8W2M4N6P8R0T2V4X' }, ['id']],
      ['a client_secret chosen by the caller', { ...valid, client_secret: 'mine-mine-mine-mine' }, ['client_secret']],
    ])('refuses %s with validation_error naming the field', async (_case, body, fields) => {
      const res = await create(body);
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(fields);
    });

    it('needs a credential', async () => {
      expectError(await t.http.post('/v2/oauth-clients').send(valid), 401, 'authentication_required');
    });

    it('refuses an API key whatever its scopes: 403', async () => {
      const key = await t.http.post('/v2/api-keys').set(...bearer(owner)).send({ name: 'k', scopes: ['write:users', 'read:users'] }).expect(201);
      const res = await t.http.post('/v2/oauth-clients').set('X-API-Key', key.body.data.key).send(valid);
      expectError(res, 403, 'insufficient_permissions');
    });
  });

  describe('GET /v2/oauth-clients and /v2/oauth-clients/{id}', () => {
    it("lists the caller's clients only, newest first, without secrets", async () => {
      const user = await createUser(t.http);
      const first = await registerClient(t.http, user, { name: 'first' });
      const second = await registerClient(t.http, user, { name: 'second' });
      await registerClient(t.http, owner, { name: 'someone else' });
      const res = await t.http.get('/v2/oauth-clients').set(...bearer(user));
      expect(res.status).toBe(200);
      expect(res.body.data.map((client: { id: string }) => client.id)).toEqual([second.id, first.id]);
      expect(res.body.meta).toEqual(expect.objectContaining({ page: 1, per_page: 20, total: 2, total_pages: 1 }));
      expect(JSON.stringify(res.body)).not.toContain('ocs_');
    });

    it('pages with page and per_page, and refuses a bad per_page', async () => {
      const user = await createUser(t.http);
      for (const name of ['a', 'b', 'c']) await registerClient(t.http, user, { name });
      const res = await t.http.get('/v2/oauth-clients?page=2&per_page=2').set(...bearer(user));
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.meta).toEqual(expect.objectContaining({ page: 2, per_page: 2, total: 3, total_pages: 2 }));
      const bad = await t.http.get('/v2/oauth-clients?per_page=0').set(...bearer(user));
      expectError(bad, 400, 'validation_error');
      expect(errorFields(bad)).toEqual(['per_page']);
    });

    it("gets one of the caller's clients; another user's, or a malformed id, is 404", async () => {
      const client = await registerClient(t.http, owner);
      const own = await t.http.get(`/v2/oauth-clients/${client.id}`).set(...bearer(owner));
      expect(own.status).toBe(200);
      expect(own.body.data).toEqual(expect.objectContaining({ id: client.id, name: 'Acme dashboard', confidential: true }));
      expect(own.body.data).not.toHaveProperty('client_secret');
      const stranger = await createUser(t.http);
      expectError(await t.http.get(`/v2/oauth-clients/${client.id}`).set(...bearer(stranger)), 404, 'resource_not_found');
      expectError(await t.http.get('/v2/oauth-clients/not-an-id').set(...bearer(owner)), 404, 'resource_not_found');
    });

    it('needs a credential', async () => {
      expectError(await t.http.get('/v2/oauth-clients'), 401, 'authentication_required');
    });
  });

  describe('DELETE /v2/oauth-clients/{id}', () => {
    it('deletes the client: 204, then 404, and its tokens stop working', async () => {
      const client = await registerClient(t.http, owner, { scopes: ['read:resources'] });
      const token = await t.http
        .post('/oauth/token')
        .auth(client.id, client.client_secret ?? '')
        .type('form')
        .send({ grant_type: 'client_credentials' })
        .expect(200);
      const accessToken = token.body.access_token as string;
      await t.http.get('/v2/resources').set('Authorization', `Bearer ${accessToken}`).expect(200);

      const res = await t.http.delete(`/v2/oauth-clients/${client.id}`).set(...bearer(owner));
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectError(await t.http.delete(`/v2/oauth-clients/${client.id}`).set(...bearer(owner)), 404, 'resource_not_found');
      expectError(await t.http.get('/v2/resources').set('Authorization', `Bearer ${accessToken}`), 401, 'authentication_required');
    });

    it("answers 404 for another user's client and leaves it", async () => {
      const client = await registerClient(t.http, owner);
      const stranger = await createUser(t.http);
      expectError(await t.http.delete(`/v2/oauth-clients/${client.id}`).set(...bearer(stranger)), 404, 'resource_not_found');
      await t.http.get(`/v2/oauth-clients/${client.id}`).set(...bearer(owner)).expect(200);
    });

    it('needs a credential', async () => {
      expectError(await t.http.delete('/v2/oauth-clients/cli_01JD3Q0F6K8W2M4N6P8R0T2V4X'), 401, 'authentication_required');
    });
  });
});
