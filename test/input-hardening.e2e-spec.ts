import { connect } from 'node:net';
import { connectTierApi, createUser, errorFields, expectError, ApiUnderTest, TestUser } from './support';
import { bearer } from './resources.fixtures';

/**
 * Inputs that once reached PostgreSQL as errors (500s): page numbers past bigint, NUL bytes,
 * lone surrogates; and hostile bodies whose cost must stay bounded (docs/api.md#request-bodies and docs/api.md#limits).
 */
describe('input hardening: no input gives a 500', () => {
  let t: ApiUnderTest;
  let user: TestUser;

  beforeAll(async () => {
    t = await connectTierApi();
    user = await createUser(t.http, { db: t.db, plan: 'enterprise' });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('one bound on every page number', () => {
    it.each(['/v2/users', '/v2/api-keys', '/v2/resources'])('%s?page=10^20 is a validation_error on page', async (path) => {
      const res = await t.http.get(`${path}?page=100000000000000000000`).set(bearer(user));
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['page']);
    });

    it.each(['/v2/users', '/v2/api-keys', '/v2/resources'])('%s at the largest page answers an empty page', async (path) => {
      const res = await t.http.get(`${path}?page=1000000000&per_page=100`).set(bearer(user));
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta.page).toBe(1000000000);
    });

    it.each(['-1', '0', '1.5', '1e3', 'abc'])('page=%s is a validation_error', async (page) => {
      const res = await t.http.get(`/v2/users?page=${page}`).set(bearer(user));
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['page']);
    });
  });

  describe('one rule for NUL bytes and lone surrogates in every string', () => {
    it('a NUL in GET /users?search= names search', async () => {
      const res = await t.http.get('/v2/users?search=a%00b').set(bearer(user));
      expectError(res, 400, 'validation_error');
      expect(res.body.error.details).toEqual([{ field: 'search', message: 'must not contain NUL characters (U+0000)' }]);
    });

    it('a NUL in a PATCH /users/me profile name names the nested field', async () => {
      const res = await t.http.patch('/v2/users/me').set(bearer(user)).send({ profile: { first_name: 'Al\u0000ice' } });
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['profile.first_name']);
      const me = await t.http.get('/v2/users/me').set(bearer(user)).expect(200);
      expect(me.body.data.profile.first_name).toBeNull();
    });

    it('a NUL in POST /api-keys name names name, and no key is made', async () => {
      const res = await t.http.post('/v2/api-keys').set(bearer(user)).send({ name: 'k\u0000', scopes: ['read:resources'] });
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['name']);
      const keys = await t.http.get('/v2/api-keys').set(bearer(user)).expect(200);
      expect(keys.body.data).toEqual([]);
    });

    it('a lone surrogate in a resource name, a tag and a metadata key is named, each one', async () => {
      const body = '{"name":"bad \\ud800 name","tags":["ok","\\udc00"],"metadata":{"k\\u0000":"v"}}';
      const res = await t.http.post('/v2/resources').set(bearer(user)).set('Content-Type', 'application/json').send(body);
      expectError(res, 400, 'validation_error');
      expect(res.body.error.details).toEqual([
        { field: 'name', message: 'must be valid Unicode text (it contains a lone surrogate)' },
        { field: 'tags[1]', message: 'must be valid Unicode text (it contains a lone surrogate)' },
        { field: 'metadata.k\u0000', message: 'has a name that must not contain NUL characters (U+0000)' },
      ]);
    });

    it('a paired surrogate (an emoji) is text like any other', async () => {
      const res = await t.http.post('/v2/resources').set(bearer(user)).send({ name: 'rocket \u{1F680}' });
      expect(res.status).toBe(201);
      expect(res.body.data.name).toBe('rocket \u{1F680}');
    });

    it('a NUL on a public route (login) is a validation_error, not a 500', async () => {
      const res = await t.http.post('/v2/auth/login').send({ email: 'a\u0000@example.com', password: 'x' });
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['email']);
    });
  });

  describe('bounded work', () => {
    it('nesting deeper than 32 levels is an invalid_request', async () => {
      const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
      const res = await t.http
        .post('/v2/resources')
        .set(bearer(user))
        .set('Content-Type', 'application/json')
        .send(`{"name":"n","metadata":${deep}}`);
      expectError(res, 400, 'invalid_request', /deeper than 32/);
    });

    it('a bulk of 300,000 empty items is refused on its size, before any item is validated', async () => {
      const body = `{"resources":[${Array(300000).fill('{}').join(',')}]}`;
      const res = await t.http.post('/v2/resources/bulk').set(bearer(user)).set('Content-Type', 'application/json').send(body);
      expectError(res, 400, 'validation_error');
      expect(res.body.error.details).toEqual([{ field: 'resources', message: 'has 300000 items; at most 1000 are accepted' }]);
    });

    it('a register body with 60,000 unknown keys is refused in one detail', async () => {
      const fields = Array.from({ length: 60000 }, (_, i) => `"k${i}":0`).join(',');
      const res = await t.http.post('/v2/auth/register').set('Content-Type', 'application/json').send(`{${fields}}`);
      expectError(res, 400, 'validation_error');
      expect(res.body.error.details).toHaveLength(1);
    });

    it('details are capped at 100, and the message says how many there were', async () => {
      const body = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`unknown_${i}`, i]));
      const res = await t.http.post('/v2/resources').set(bearer(user)).send({ name: 'n', ...body });
      expectError(res, 400, 'validation_error', /first 100 of 150 problems/);
      expect(res.body.error.details).toHaveLength(100);
    });
  });
  describe('requests the HTTP parser refuses', () => {
    it.each([
      ['/v2/users', { error: { code: 'invalid_request', message: 'The request line and headers exceed 16 KiB.' } }],
      ['/oauth/token', { error: 'invalid_request', error_description: 'The request line and headers exceed 16 KiB.' }],
    ])('a header block over 16 KiB on %s is a 431 in that route’s error form', async (path, body) => {
      const res = await fetch(`${t.url}${path}`, { headers: { 'X-Padding': 'x'.repeat(20_000) } });
      expect(res.status).toBe(431);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(body);
    });

    it('a malformed request line is a 400 in the envelope', async () => {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => socket.end('NOT HTTP\r\n\r\n'));
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
        error: { code: 'invalid_request', message: 'The request is not valid HTTP.' },
      });
    });
  });
});
