import { connectTierApi, createUser, expectError, ApiUnderTest, TestUser } from './support';

/**
 * Removed authentication methods each get 401 authentication_required naming the supported
 * replacement; two credentials in one request are 400 invalid_request (docs/api.md#removed-methods).
 */

describe('removed methods and credential conflicts', () => {
  let t: ApiUnderTest;
  let user: TestUser;
  let apiKey: string;
  let sessionCookie: string;

  beforeAll(async () => {
    t = await connectTierApi();
    user = await createUser(t.http);
    const key = await t.http
      .post('/v2/api-keys')
      .set('Authorization', `Bearer ${user.accessToken}`)
      .send({ name: 'k', scopes: ['read:users'] })
      .expect(201);
    apiKey = key.body.data.key;
    const login = await t.http.post('/v2/session/login').send({ email: user.email, password: user.password }).expect(200);
    sessionCookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
  });
  afterAll(async () => {
    await t.close();
  });

  const me = () => t.http.get('/v2/users/me');

  it('Authorization: Basic is 401 and points to Bearer tokens and API keys', async () => {
    const basic = Buffer.from(`${user.email}:${user.password}`).toString('base64');
    expectError(await me().set('Authorization', `Basic ${basic}`), 401, 'authentication_required', /Basic.*Bearer.*X-API-Key/);
  });

  it('an Authorization value without Bearer is 401 and asks for "Bearer <token>"', async () => {
    expectError(await me().set('Authorization', user.accessToken), 401, 'authentication_required', /Bearer <token>/);
    expectError(await me().set('Authorization', `Token ${user.accessToken}`), 401, 'authentication_required', /Bearer <token>/);
  });

  it('Authorization: OAuth (1.0) is 401 and points to OAuth 2.0', async () => {
    const oauth1 = 'OAuth oauth_consumer_key="key", oauth_nonce="n", oauth_signature="s", oauth_signature_method="HMAC-SHA1"';
    expectError(await me().set('Authorization', oauth1), 401, 'authentication_required', /OAuth 1\.0.*OAuth 2\.0/);
  });

  it('X-API-Key: api_v1_... is 401 and points to POST /v2/api-keys', async () => {
    expectError(await me().set('X-API-Key', 'api_v1_0123456789abcdef'), 401, 'authentication_required', /api_v1_.*POST \/v2\/api-keys/);
  });

  it('the api_key query parameter is 401 and points to the X-API-Key header, even with a valid key', async () => {
    expectError(await t.http.get(`/v2/users/me?api_key=${apiKey}`), 401, 'authentication_required', /query.*X-API-Key/);
    expectError(
      await t.http.get(`/v2/users/me?api_key=${apiKey}`).set('Authorization', `Bearer ${user.accessToken}`),
      401,
      'authentication_required',
      /X-API-Key header/,
    );
  });

  it('X-Auth-Token outside /auth/migrate is 401 and points to POST /v2/auth/migrate', async () => {
    expectError(await me().set('X-Auth-Token', 'legacy-token'), 401, 'authentication_required', /POST \/v2\/auth\/migrate/);
    expectError(
      await me().set('X-Auth-Token', 'legacy-token').set('Authorization', `Bearer ${user.accessToken}`),
      401,
      'authentication_required',
      /migrate/,
    );
  });

  it('an API key sent as a bearer token (as Stripe takes it) is 401 pointing to X-API-Key, not a malformed token', async () => {
    const res = await me().set('Authorization', `Bearer ${apiKey}`);
    expectError(res, 401, 'authentication_required', /X-API-Key header/);
    expect(res.body.error.message).not.toMatch(/malformed/);
    expect(res.body.error.message).not.toContain(apiKey);
    expectError(await me().set('Authorization', `Bearer ${apiKey}`).set('X-API-Key', apiKey), 401, 'authentication_required', /X-API-Key header/);
    expectError(await me().set('Authorization', 'Bearer api_v1_0123456789abcdef'), 401, 'authentication_required', /api_v1_.*X-API-Key/);
  });

  it('a malformed access token is still answered as one', async () => {
    expectError(await me().set('Authorization', 'Bearer not-a-token'), 401, 'authentication_required', /malformed/);
  });

  it('no credential at all is 401 naming the supported ones', async () => {
    expectError(await me(), 401, 'authentication_required', /Bearer.*X-API-Key.*session/);
  });

  it.each([
    ['a Bearer token and an API key', { Authorization: 'bearer', 'X-API-Key': 'key' }],
    ['a Bearer token and a session cookie', { Authorization: 'bearer', Cookie: 'cookie' }],
    ['an API key and a session cookie', { 'X-API-Key': 'key', Cookie: 'cookie' }],
  ])('%s in one request are 400 invalid_request', async (_case, headers) => {
    const values: Record<string, string> = { bearer: `Bearer ${user.accessToken}`, key: apiKey, cookie: sessionCookie };
    let request = me();
    for (const [name, value] of Object.entries(headers)) request = request.set(name, values[value]);
    expectError(await request, 400, 'invalid_request', /exactly one credential/);
  });

  it('each supported credential alone still works, and the Bearer scheme is case-insensitive', async () => {
    expect((await me().set('Authorization', `Bearer ${user.accessToken}`)).status).toBe(200);
    expect((await me().set('Authorization', `bearer ${user.accessToken}`)).status).toBe(200);
    expect((await me().set('X-API-Key', apiKey)).status).toBe(200);
    expect((await me().set('Cookie', sessionCookie)).status).toBe(200);
  });

  describe('on public routes too', () => {
    const credentials = { email: 'nobody@example.com', password: 'a long passphrase' };
    const publicRoutes: Array<[string, () => ReturnType<typeof me>]> = [
      ['POST /v2/auth/login', () => t.http.post('/v2/auth/login').send(credentials)],
      ['POST /v2/auth/register', () => t.http.post('/v2/auth/register').send({ ...credentials, username: 'nobody' })],
      ['POST /v2/auth/refresh', () => t.http.post('/v2/auth/refresh').send({ refresh_token: 'x' })],
      ['POST /v2/session/login', () => t.http.post('/v2/session/login').send(credentials)],
      ['POST /v2/auth/migrate', () => t.http.post('/v2/auth/migrate').set('X-Auth-Token', 'legacy')],
      ['GET /health/live', () => t.http.get('/health/live')],
    ];

    it.each(publicRoutes)('%s answers Authorization: Basic with 401 naming the replacement', async (_route, call) => {
      expectError(await call().set('Authorization', 'Basic dXNlcjpwYXNz'), 401, 'authentication_required', /Basic.*Bearer/);
    });

    it.each(publicRoutes)('%s answers an api_v1_ key with 401', async (_route, call) => {
      expectError(await call().set('X-API-Key', 'api_v1_0123456789abcdef'), 401, 'authentication_required', /api_v1_/);
    });

    it('login answers the api_key query parameter and X-Auth-Token with 401', async () => {
      const withQuery = t.http.post('/v2/auth/login?api_key=sk_test_x').send(credentials);
      expectError(await withQuery, 401, 'authentication_required', /X-API-Key header/);
      const withLegacy = t.http.post('/v2/auth/login').set('X-Auth-Token', 'legacy').send(credentials);
      expectError(await withLegacy, 401, 'authentication_required', /POST \/v2\/auth\/migrate/);
    });

    it('X-Auth-Token stays the credential of POST /v2/auth/migrate (an unknown token is its own 401)', async () => {
      const res = await t.http.post('/v2/auth/migrate').set('X-Auth-Token', 'not-a-legacy-token');
      expectError(res, 401, 'authentication_required');
      expect(res.body.error.message).not.toMatch(/accepted only by/);
    });

    it('a supported credential on a public route is ignored: login takes its credentials from the body', async () => {
      const res = await t.http
        .post('/v2/auth/login')
        .set('Authorization', `Bearer ${user.accessToken}`)
        .send({ email: user.email, password: user.password });
      expect(res.status).toBe(200);
    });
  });
});
