import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { createTestApp, createUser, expectError, TestApp, TestUser } from './support';
import { consent, hiddenField, hiddenFields, pkcePair, REDIRECT_URI, RegisteredClient, registerClient, sessionCookie, setCookiePair } from './oauth/oauth-flow';
import { createTestAppWithPublicUrl } from './oauth/oauth-test-app';

/** The authorization server: /oauth/authorize pages, /oauth/token, revoke, introspect, metadata (docs/api.md#root-paths, docs/api.md#oauth). */
describe('OAuth 2.0 authorization server', () => {
  let t: TestApp;
  let owner: TestUser;
  let user: TestUser;
  let client: RegisteredClient;
  let publicClient: RegisteredClient;
  let cookie: string;
  let issuer: string;

  beforeAll(async () => {
    t = await createTestApp();
    issuer = t.app.get(AppConfig).PUBLIC_URL;
    owner = await createUser(t.http);
    user = await createUser(t.http);
    client = await registerClient(t.http, owner);
    publicClient = await registerClient(t.http, owner, { confidential: false });
    cookie = await sessionCookie(t.http, user);
  });
  afterAll(() => t.close());

  // PKCE is required of every client: requests carry a challenge unless a test says otherwise.
  const pkce = pkcePair();
  const authorizeQuery = (overrides: Record<string, string> = {}, target = client): Record<string, string> => ({
    response_type: 'code',
    client_id: target.id,
    redirect_uri: REDIRECT_URI,
    scope: 'read:resources',
    state: 'st-123',
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    ...overrides,
  });
  const tokenRequest = () => t.http.post('/oauth/token').type('form');
  const secretOf = (c: RegisteredClient): string => c.client_secret ?? '';

  /** Allow on the consent page, then exchange the code with PKCE: the token response. */
  async function codeTokens(scope = 'read:resources'): Promise<{ access_token: string; refresh_token: string; scope: string }> {
    const { verifier, challenge } = pkcePair();
    const back = await consent(t.http, cookie, authorizeQuery({ scope, code_challenge: challenge, code_challenge_method: 'S256' }));
    const res = await tokenRequest()
      .send({ grant_type: 'authorization_code', code: back.searchParams.get('code'), redirect_uri: REDIRECT_URI, code_verifier: verifier })
      .auth(client.id, secretOf(client))
      .expect(200);
    return res.body;
  }

  function expectOAuthError(res: { status: number; body: unknown; headers: Record<string, unknown> }, status: number, error: string): void {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error, error_description: expect.any(String) });
    expect(res.headers['cache-control']).toBe('no-store');
  }

  describe('GET /oauth/authorize', () => {
    it('shows a login page without a session: labelled fields, CSRF token, CSP and X-Frame-Options DENY', async () => {
      const res = await t.http.get('/oauth/authorize').query(authorizeQuery());
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
      expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).toContain('<label for="email">Email</label>');
      expect(res.text).toContain('<label for="password">Password</label>');
      expect(res.text).toContain('Acme dashboard');
      expect(res.text).not.toContain('<script');
      expect(hiddenField(res.text, 'csrf_token')).toEqual(expect.stringMatching(/^[0-9A-Za-z_-]{43}$/));
      // The cookie holds the pre-session the form's token is bound to, on the whole host (the __Host- rules).
      const [csrfCookie] = res.headers['set-cookie'] as unknown as string[];
      expect(csrfCookie).toMatch(/^rms_oauth_csrf=[0-9A-Za-z]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    });

    it('shows the consent page with a session: the client and each scope in words, Allow and Deny', async () => {
      const res = await t.http.get('/oauth/authorize').query(authorizeQuery({ scope: 'read:resources write:resources' })).set('Cookie', cookie);
      expect(res.status).toBe(200);
      expect(res.text).toContain('Allow <strong>Acme dashboard</strong>');
      expect(res.text).toContain('See your resources');
      expect(res.text).toContain('Create, change and delete your resources');
      expect(res.text).toContain('value="allow"');
      expect(res.text).toContain('value="deny"');
      expect(res.headers['content-security-policy']).toContain("form-action 'self' https://client.example.com");
    });

    it('escapes what it echoes into the page', async () => {
      const res = await t.http.get('/oauth/authorize').query(authorizeQuery({ state: '"><script>alert(1)</script>' })).set('Cookie', cookie);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('<script>alert(1)');
    });

    it('takes the one registered redirect URI when none is given', async () => {
      const query: Record<string, string> = authorizeQuery();
      delete query.redirect_uri;
      const res = await t.http.get('/oauth/authorize').query(query).set('Cookie', cookie);
      expect(res.status).toBe(200);
      expect(hiddenField(res.text, 'redirect_uri')).toBe(REDIRECT_URI);
    });

    it.each([
      ['an unknown client', { client_id: 'cli_01JD3Q0F6K8W2M4N6P8R0T2V4X' }, 'not registered'],
      ['a malformed client_id', { client_id: 'nope' }, 'not registered'],
      ['no client_id', { client_id: '' }, 'does not name a client'],
      ['an unregistered redirect URI', { redirect_uri: 'https://evil.example.com/callback' }, 'redirect URI'],
      ['a redirect URI that only starts like a registered one', { redirect_uri: `${REDIRECT_URI}/../x` }, 'redirect URI'],
    ])('shows an error page, and never redirects, for %s', async (_case, overrides, message) => {
      const res = await t.http.get('/oauth/authorize').query(authorizeQuery(overrides)).set('Cookie', cookie);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.text).toContain(message);
    });

    const withoutPkce = (target: RegisteredClient): Record<string, string> => {
      const query = authorizeQuery({}, target);
      delete query.code_challenge;
      delete query.code_challenge_method;
      return query;
    };

    // Before the user has seen a page of the service nothing goes back to the client, lest the
    // service redirect anyone to any registered URI (RFC 9700 4.11.2).
    it.each<[string, () => Record<string, string>, string]>([
      ['an unsupported response_type', () => authorizeQuery({ response_type: 'token' }), 'unsupported_response_type'],
      ['no response_type', () => authorizeQuery({ response_type: '' }), 'invalid_request'],
      ['a scope beyond the client', () => authorizeQuery({ scope: 'read:resources write:users' }), 'invalid_scope'],
      ['an unknown scope', () => authorizeQuery({ scope: 'admin' }), 'invalid_scope'],
      ['code_challenge_method plain', () => authorizeQuery({ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }), 'invalid_request'],
      ['a malformed code_challenge', () => authorizeQuery({ code_challenge: 'short' }), 'invalid_request'],
      ['a state that is not printable ASCII', () => authorizeQuery({ state: 'caf\u00e9' }), 'invalid_request'],
      ['a confidential client without PKCE', () => withoutPkce(client), 'PKCE is required'],
      ['a public client without PKCE', () => withoutPkce(publicClient), 'PKCE is required'],
    ])('shows an error page, and does not redirect, for %s', async (_case, query, message) => {
      for (const session of [cookie, '']) {
        const res = await t.http.get('/oauth/authorize').query(query()).set('Cookie', session);
        expect(res.status).toBe(400);
        expect(res.headers.location).toBeUndefined();
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.text).toContain(message);
      }
    });

    it('shows an error page for a repeated parameter', async () => {
      const res = await t.http
        .get(`/oauth/authorize?client_id=${client.id}&response_type=code&code_challenge=${pkce.challenge}&scope=read:resources&scope=write:resources`)
        .set('Cookie', cookie);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toContain('scope is repeated');
    });
  });

  describe('POST /oauth/authorize/login', () => {
    async function loginForm(): Promise<{ csrf: string; csrfCookie: string; fields: Record<string, string> }> {
      const page = await t.http.get('/oauth/authorize').query(authorizeQuery()).expect(200);
      const csrf = hiddenField(page.text, 'csrf_token') ?? '';
      const csrfCookie = (page.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      return { csrf, csrfCookie, fields: { ...authorizeQuery(), csrf_token: csrf } };
    }

    it('logs in, sets the session cookie and goes on to the consent page', async () => {
      const { csrfCookie, fields } = await loginForm();
      const res = await t.http
        .post('/oauth/authorize/login')
        .type('form')
        .set('Cookie', csrfCookie)
        .send({ ...fields, email: user.email, password: user.password });
      expect(res.status).toBe(303);
      expect(res.headers.location).toMatch(/^\/oauth\/authorize\?/);
      const session = (res.headers['set-cookie'] as unknown as string[]).find((line) => line.startsWith('rms_session='));
      expect(session).toMatch(/HttpOnly/);
      const consentPage = await t.http.get(res.headers.location).set('Cookie', session?.split(';')[0] ?? '');
      expect(consentPage.status).toBe(200);
      expect(consentPage.text).toContain('value="allow"');
    });

    it('shows the login page again, 401, for a wrong password', async () => {
      const { csrfCookie, fields } = await loginForm();
      const res = await t.http
        .post('/oauth/authorize/login')
        .type('form')
        .set('Cookie', csrfCookie)
        .send({ ...fields, email: user.email, password: 'wrong-password' });
      expect(res.status).toBe(401);
      expect(res.text).toContain('The email or password is incorrect.');
      expect(res.text).toContain('<label for="password">');
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    type Tampering = (form: { csrf: string; csrfCookie: string; fields: Record<string, string> }, other: { csrf: string; csrfCookie: string }) => {
      cookie: string;
      fields: Record<string, string>;
    };
    it.each<[string, Tampering]>([
      ['missing from the form', ({ csrfCookie, fields }) => ({ cookie: csrfCookie, fields: { ...fields, csrf_token: '' } })],
      ['without its cookie', ({ fields }) => ({ cookie: '', fields })],
      ['with another cookie value', ({ csrfCookie, fields }) => ({ cookie: `${csrfCookie}x`, fields })],
      // A cookie planted beside a form that matches it, as a double-submit check would accept.
      ['planted as a matching cookie and field', ({ fields }) => ({ cookie: `rms_oauth_csrf=${'P'.repeat(43)}`, fields: { ...fields, csrf_token: 'P'.repeat(43) } })],
      ['issued for another pre-session', ({ csrfCookie, fields }, other) => ({ cookie: csrfCookie, fields: { ...fields, csrf_token: other.csrf } })],
      ['sent with the cookie of the pre-session it was not issued for', ({ fields }, other) => ({ cookie: other.csrfCookie, fields })],
    ])('refuses a CSRF token %s with a 403 page', async (_case, tamper) => {
      const sent = tamper(await loginForm(), await loginForm());
      const res = await t.http
        .post('/oauth/authorize/login')
        .type('form')
        .set('Cookie', sent.cookie)
        .send({ ...sent.fields, email: user.email, password: user.password });
      expect(res.status).toBe(403);
      expect(res.text).toContain('security token');
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    it('sends a bad parameter back to the client, with state and iss, once the form came from the page', async () => {
      const { csrfCookie, fields } = await loginForm();
      const res = await t.http
        .post('/oauth/authorize/login')
        .type('form')
        .set('Cookie', csrfCookie)
        .send({ ...fields, scope: 'read:users', email: user.email, password: user.password });
      expect(res.status).toBe(303);
      const back = new URL(res.headers.location);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
      expect(Object.fromEntries(back.searchParams)).toEqual({ error: 'invalid_scope', error_description: expect.any(String), state: 'st-123', iss: issuer });
    });

    it('shows an error page, not a redirect, for a bad parameter in a form without its token', async () => {
      const res = await t.http
        .post('/oauth/authorize/login')
        .type('form')
        .send({ ...authorizeQuery({ scope: 'read:users' }), email: user.email, password: user.password });
      expect(res.status).toBe(403);
      expect(res.headers.location).toBeUndefined();
    });
  });

  describe('POST /oauth/authorize (consent)', () => {
    it('Allow redirects to the redirect URI with code, state and iss', async () => {
      const back = await consent(t.http, cookie, authorizeQuery());
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
      expect(back.searchParams.get('code')).toMatch(/^[0-9A-Za-z]{43}$/);
      expect(back.searchParams.get('state')).toBe('st-123');
      expect(back.searchParams.get('iss')).toBe(issuer);
    });

    it('Deny redirects with error=access_denied, state and iss', async () => {
      const back = await consent(t.http, cookie, authorizeQuery(), 'deny');
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('state')).toBe('st-123');
      expect(back.searchParams.get('iss')).toBe(issuer);
      expect(back.searchParams.get('code')).toBeNull();
    });

    it('sends a bad parameter of the consent form back to the client, with state and iss', async () => {
      const page = await t.http.get('/oauth/authorize').query(authorizeQuery()).set('Cookie', cookie).expect(200);
      const res = await t.http
        .post('/oauth/authorize')
        .type('form')
        .set('Cookie', cookie)
        .send({ ...hiddenFields(page.text), code_challenge_method: 'plain', decision: 'allow' });
      expect(res.status).toBe(303);
      const back = new URL(res.headers.location);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('state')).toBe('st-123');
      expect(back.searchParams.get('iss')).toBe(issuer);
      expect(back.searchParams.get('code')).toBeNull();
    });

    it('refuses a form without the CSRF token: 403 page, no redirect', async () => {
      const res = await t.http.post('/oauth/authorize').type('form').set('Cookie', cookie).send({ ...authorizeQuery(), decision: 'allow' });
      expect(res.status).toBe(403);
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toContain('security token');
    });

    it('refuses a CSRF token of another session', async () => {
      const other = await sessionCookie(t.http, owner);
      const page = await t.http.get('/oauth/authorize').query(authorizeQuery()).set('Cookie', other).expect(200);
      const res = await t.http
        .post('/oauth/authorize')
        .type('form')
        .set('Cookie', cookie)
        .send({ ...authorizeQuery(), decision: 'allow', csrf_token: hiddenField(page.text, 'csrf_token') });
      expect(res.status).toBe(403);
    });

    it('shows the login page, 401, when the session is gone', async () => {
      const res = await t.http.post('/oauth/authorize').type('form').send({ ...authorizeQuery(), decision: 'allow', csrf_token: 'x' });
      expect(res.status).toBe(401);
      expect(res.text).toContain('<label for="email">');
    });

    it('asks for a decision', async () => {
      const page = await t.http.get('/oauth/authorize').query(authorizeQuery()).set('Cookie', cookie).expect(200);
      const res = await t.http
        .post('/oauth/authorize')
        .type('form')
        .set('Cookie', cookie)
        .send({ ...authorizeQuery(), csrf_token: hiddenField(page.text, 'csrf_token') });
      expect(res.status).toBe(400);
      expect(res.text).toContain('Choose Allow or Deny');
    });

    it('shows an error page for a form naming an unregistered redirect URI', async () => {
      const res = await t.http
        .post('/oauth/authorize')
        .type('form')
        .set('Cookie', cookie)
        .send({ ...authorizeQuery({ redirect_uri: 'https://evil.example.com/cb' }), decision: 'allow', csrf_token: 'x' });
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
    });
  });

  describe('POST /oauth/token: authorization_code', () => {
    it('exchanges a code with PKCE for tokens that act on /v2 with exactly their scopes', async () => {
      const { verifier, challenge } = pkcePair();
      const back = await consent(t.http, cookie, authorizeQuery({ code_challenge: challenge, code_challenge_method: 'S256' }));
      const res = await tokenRequest().send({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code'),
        redirect_uri: REDIRECT_URI,
        client_id: client.id,
        client_secret: secretOf(client),
        code_verifier: verifier,
      });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        access_token: expect.stringMatching(/^oat_/),
        token_type: 'Bearer',
        expires_in: expect.any(Number),
        refresh_token: expect.stringMatching(/^ort_/),
        scope: 'read:resources',
      });
      const auth: [string, string] = ['Authorization', `Bearer ${res.body.access_token}`];
      const list = await t.http.get('/v2/resources').set(...auth);
      expect(list.status).toBe(200);
      const me = await t.http.get('/v2/users/me').set(...auth);
      expectError(me, 403, 'insufficient_permissions', /read:users/);
      const write = await t.http.post('/v2/resources').set(...auth).send({ name: 'x' });
      expectError(write, 403, 'insufficient_permissions', /write:resources/);
    });

    it('acts as the user who allowed it', async () => {
      const tokens = await codeTokens('read:resources write:resources');
      const created = await t.http.post('/v2/resources').set('Authorization', `Bearer ${tokens.access_token}`).send({ name: 'made over OAuth' });
      expect(created.status).toBe(201);
      expect(created.body.data.owner_id).toBe(user.id);
    });

    it('takes the client secret by HTTP Basic', async () => {
      const tokens = await codeTokens();
      expect(tokens.access_token).toMatch(/^oat_/);
    });

    const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    /** RFC 6749 2.3.1 (Appendix B): the id and secret are form-encoded before Basic joins them. */
    const formEncode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2).replace(/_/g, '%5F');

    it.each(['/oauth/token', '/oauth/revoke', '/oauth/introspect'])('%s form-decodes the id and secret of HTTP Basic', async (path) => {
      const form = path === '/oauth/token' ? { grant_type: 'client_credentials' } : { token: 'oat_unknown' };
      const res = await t.http.post(path).type('form').set('Authorization', basic(formEncode(client.id), formEncode(secretOf(client)))).send(form);
      expect(res.status).toBe(200);
    });

    it.each(['/oauth/token', '/oauth/revoke', '/oauth/introspect'])('%s refuses a malformed encoding with invalid_client', async (path) => {
      const form = path === '/oauth/token' ? { grant_type: 'client_credentials' } : { token: 'oat_unknown' };
      const res = await t.http.post(path).type('form').set('Authorization', basic(client.id, `${secretOf(client)}%zz`)).send(form);
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers['www-authenticate']).toMatch(/^Basic/);
    });

    it('lets a public client exchange with PKCE alone', async () => {
      const { verifier, challenge } = pkcePair();
      const back = await consent(t.http, cookie, authorizeQuery({ code_challenge: challenge, code_challenge_method: 'S256' }, publicClient));
      const res = await tokenRequest().send({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code'),
        redirect_uri: REDIRECT_URI,
        client_id: publicClient.id,
        code_verifier: verifier,
      });
      expect(res.status).toBe(200);
      expect(res.body.access_token).toMatch(/^oat_/);
    });

    async function codeWithChallenge(): Promise<{ code: string; verifier: string }> {
      const { verifier, challenge } = pkcePair();
      const back = await consent(t.http, cookie, authorizeQuery({ code_challenge: challenge, code_challenge_method: 'S256' }));
      return { code: back.searchParams.get('code') ?? '', verifier };
    }

    it.each([
      ['a missing code_verifier', (verifier: string) => ({ verifier: undefined as string | undefined, _v: verifier })],
      ['a wrong code_verifier', () => ({ verifier: pkcePair().verifier })],
    ])('refuses %s with invalid_grant, and the code is used up', async (_case, pick) => {
      const { code, verifier } = await codeWithChallenge();
      const sent = pick(verifier);
      const body: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI };
      if (sent.verifier !== undefined) body.code_verifier = sent.verifier;
      expectOAuthError(await tokenRequest().auth(client.id, secretOf(client)).send(body), 400, 'invalid_grant');
      const retry = await tokenRequest().auth(client.id, secretOf(client)).send({ ...body, code_verifier: verifier });
      expectOAuthError(retry, 400, 'invalid_grant');
    });

    it('refuses a reused code, and revokes what the first exchange issued', async () => {
      const { code, verifier } = await codeWithChallenge();
      const body = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier };
      const first = await tokenRequest().auth(client.id, secretOf(client)).send(body).expect(200);
      await t.http.get('/v2/resources').set('Authorization', `Bearer ${first.body.access_token}`).expect(200);
      expectOAuthError(await tokenRequest().auth(client.id, secretOf(client)).send(body), 400, 'invalid_grant');
      expectError(await t.http.get('/v2/resources').set('Authorization', `Bearer ${first.body.access_token}`), 401, 'authentication_required', /revoked/);
      const refresh = await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
      expectOAuthError(refresh, 400, 'invalid_grant');
    });

    it('refuses an expired code', async () => {
      const { code, verifier } = await codeWithChallenge();
      await t.app.get(DataSource).query(`UPDATE oauth_authorization_codes SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`);
      const res = await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
      expectOAuthError(res, 400, 'invalid_grant');
      expect(res.body.error_description).toMatch(/expired/);
    });

    it('refuses a code issued to another client', async () => {
      const { code, verifier } = await codeWithChallenge();
      const other = await registerClient(t.http, owner);
      const res = await tokenRequest().auth(other.id, secretOf(other)).send({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
      expectOAuthError(res, 400, 'invalid_grant');
    });

    it('refuses a redirect_uri other than the one of the request', async () => {
      const { code, verifier } = await codeWithChallenge();
      const res = await tokenRequest()
        .auth(client.id, secretOf(client))
        .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example.com/other', code_verifier: verifier });
      expectOAuthError(res, 400, 'invalid_request');
    });

    it('refuses a wrong client secret: 401 invalid_client with a Basic challenge', async () => {
      const { code, verifier } = await codeWithChallenge();
      const res = await tokenRequest().auth(client.id, 'ocs_wrong').send({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers['www-authenticate']).toMatch(/^Basic/);
    });

    it('refuses a wrong client secret in the body with invalid_client', async () => {
      const res = await tokenRequest().send({ grant_type: 'authorization_code', code: 'x', client_id: client.id, client_secret: 'ocs_wrong' });
      expectOAuthError(res, 400, 'invalid_client');
    });

    it('refuses a confidential client that sends no secret', async () => {
      const { code, verifier } = await codeWithChallenge();
      const res = await tokenRequest().send({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: client.id, code_verifier: verifier });
      expectOAuthError(res, 400, 'invalid_client');
    });
  });

  describe('POST /oauth/token: client_credentials', () => {
    it("issues a token for the client's owner, with the scopes asked for and no refresh token", async () => {
      const res = await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'client_credentials', scope: 'write:resources' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ access_token: expect.stringMatching(/^oat_/), token_type: 'Bearer', expires_in: expect.any(Number), scope: 'write:resources' });
      const created = await t.http.post('/v2/resources').set('Authorization', `Bearer ${res.body.access_token}`).send({ name: 'machine-made' });
      expect(created.status).toBe(201);
      expect(created.body.data.owner_id).toBe(owner.id);
    });

    it("grants all of the client's scopes when none is asked for", async () => {
      const res = await tokenRequest().send({ grant_type: 'client_credentials', client_id: client.id, client_secret: secretOf(client) });
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('read:resources write:resources');
    });

    it("refuses a scope beyond the client's with invalid_scope", async () => {
      const res = await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'client_credentials', scope: 'read:resources read:users' });
      expectOAuthError(res, 400, 'invalid_scope');
    });

    it('refuses a public client, which has no secret to authenticate with: invalid_client', async () => {
      expectOAuthError(await tokenRequest().send({ grant_type: 'client_credentials', client_id: publicClient.id }), 400, 'invalid_client');
    });

    it.each(['password', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code', 'urn:example:unknown'])(
      'answers unsupported_grant_type to the grant %s, which the server does not offer',
      async (grantType) => {
        const form = { grant_type: grantType, username: user.email, password: user.password };
        expectOAuthError(await tokenRequest().auth(client.id, secretOf(client)).send(form), 400, 'unsupported_grant_type');
        expectOAuthError(await tokenRequest().send({ ...form, client_id: publicClient.id }), 400, 'unsupported_grant_type');
      },
    );

    it('refuses no grant type, and a JSON body', async () => {
      expectOAuthError(await tokenRequest().auth(client.id, secretOf(client)).send({}), 400, 'invalid_request');
      const json = await t.http.post('/oauth/token').auth(client.id, secretOf(client)).send({ grant_type: 'client_credentials' });
      expectOAuthError(json, 400, 'invalid_request');
    });

    it('answers a malformed body in RFC 6749 form too', async () => {
      const res = await t.http.post('/oauth/token').set('Content-Type', 'text/plain').send('grant_type=client_credentials');
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    });
  });

  describe('POST /oauth/token: refresh_token', () => {
    it('rotates: a new pair, and the old refresh token is used up', async () => {
      const first = await codeTokens();
      const res = await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
      expect(res.status).toBe(200);
      expect(res.body.refresh_token).toMatch(/^ort_/);
      expect(res.body.refresh_token).not.toBe(first.refresh_token);
      expect(res.body.scope).toBe('read:resources');
      await t.http.get('/v2/resources').set('Authorization', `Bearer ${res.body.access_token}`).expect(200);
    });

    it('detects reuse: the old refresh token again revokes the whole grant', async () => {
      const first = await codeTokens();
      const second = await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'refresh_token', refresh_token: first.refresh_token }).expect(200);
      const reuse = await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
      expectOAuthError(reuse, 400, 'invalid_grant');
      expectError(await t.http.get('/v2/resources').set('Authorization', `Bearer ${second.body.access_token}`), 401, 'authentication_required');
      const next = await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token });
      expectOAuthError(next, 400, 'invalid_grant');
    });

    it('refuses a refresh token of another client, and an access token', async () => {
      const first = await codeTokens();
      const other = await registerClient(t.http, owner);
      expectOAuthError(
        await tokenRequest().auth(other.id, secretOf(other)).send({ grant_type: 'refresh_token', refresh_token: first.refresh_token }),
        400,
        'invalid_grant',
      );
      expectOAuthError(
        await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'refresh_token', refresh_token: first.access_token }),
        400,
        'invalid_grant',
      );
    });

    it('refuses a wider scope with invalid_scope, and the refresh token stays usable', async () => {
      const first = await codeTokens();
      const wider = await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'write:resources' });
      expectOAuthError(wider, 400, 'invalid_scope');
      const next = await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
      expect(next.status).toBe(200);
      await t.http.get('/v2/resources').set('Authorization', `Bearer ${next.body.access_token}`).expect(200);
    });
  });

  describe('POST /oauth/revoke and /oauth/introspect', () => {
    it('introspects an active token, then revokes it: inactive and refused on /v2', async () => {
      const tokens = await codeTokens();
      const active = await t.http.post('/oauth/introspect').type('form').auth(client.id, secretOf(client)).send({ token: tokens.access_token });
      expect(active.status).toBe(200);
      expect(active.headers['cache-control']).toBe('no-store');
      expect(active.body).toEqual({
        active: true,
        scope: 'read:resources',
        client_id: client.id,
        sub: user.id,
        token_type: 'Bearer',
        exp: expect.any(Number),
        iat: expect.any(Number),
      });
      const revoked = await t.http.post('/oauth/revoke').type('form').auth(client.id, secretOf(client)).send({ token: tokens.access_token });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({});
      expectError(await t.http.get('/v2/resources').set('Authorization', `Bearer ${tokens.access_token}`), 401, 'authentication_required', /revoked/);
      const inactive = await t.http.post('/oauth/introspect').type('form').send({ token: tokens.access_token, client_id: client.id, client_secret: secretOf(client) });
      expect(inactive.body).toEqual({ active: false });
      // The refresh token of the grant still works: revoking an access token revokes that token only.
      await tokenRequest().auth(client.id, secretOf(client)).send({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }).expect(200);
    });

    it('revoking a refresh token revokes every token of its grant', async () => {
      const tokens = await codeTokens();
      await t.http.post('/oauth/revoke').type('form').auth(client.id, secretOf(client)).send({ token: tokens.refresh_token, token_type_hint: 'refresh_token' }).expect(200);
      expectError(await t.http.get('/v2/resources').set('Authorization', `Bearer ${tokens.access_token}`), 401, 'authentication_required');
    });

    it("answers 200 for an unknown token or another client's, and leaves the latter alone", async () => {
      const tokens = await codeTokens();
      const other = await registerClient(t.http, owner);
      await t.http.post('/oauth/revoke').type('form').auth(other.id, secretOf(other)).send({ token: tokens.access_token }).expect(200);
      await t.http.post('/oauth/revoke').type('form').auth(other.id, secretOf(other)).send({ token: 'oat_unknown' }).expect(200);
      await t.http.get('/v2/resources').set('Authorization', `Bearer ${tokens.access_token}`).expect(200);
      const seen = await t.http.post('/oauth/introspect').type('form').auth(other.id, secretOf(other)).send({ token: tokens.access_token });
      expect(seen.body).toEqual({ active: false });
    });

    it.each(['/oauth/revoke', '/oauth/introspect'])('%s needs client authentication and a token', async (path) => {
      expectOAuthError(await t.http.post(path).type('form').send({ token: 'x' }), 401, 'invalid_client');
      const wrong = await t.http.post(path).type('form').auth(client.id, 'ocs_wrong').send({ token: 'x' });
      expectOAuthError(wrong, 401, 'invalid_client');
      expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
      expectOAuthError(await t.http.post(path).type('form').auth(client.id, secretOf(client)).send({}), 400, 'invalid_request');
    });
  });

  describe('OAuth access tokens on /v2', () => {
    it('refuses an unknown or expired token with 401', async () => {
      expectError(await t.http.get('/v2/resources').set('Authorization', 'Bearer oat_nope'), 401, 'authentication_required', /not valid/);
      const tokens = await codeTokens();
      await t.app.get(DataSource).query(`UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE kind = 'access'`);
      expectError(await t.http.get('/v2/resources').set('Authorization', `Bearer ${tokens.access_token}`), 401, 'authentication_required', /expired/);
    });

    it('cannot manage credentials: 403 on /v2/api-keys and /v2/oauth-clients', async () => {
      const tokens = await codeTokens();
      const auth: [string, string] = ['Authorization', `Bearer ${tokens.access_token}`];
      expectError(await t.http.get('/v2/api-keys').set(...auth), 403, 'insufficient_permissions');
      expectError(await t.http.get('/v2/oauth-clients').set(...auth), 403, 'insufficient_permissions');
    });

    it('is one credential: with an API key beside it the request is invalid_request', async () => {
      const tokens = await codeTokens();
      const res = await t.http.get('/v2/resources').set('Authorization', `Bearer ${tokens.access_token}`).set('X-API-Key', 'sk_test_x');
      expectError(res, 400, 'invalid_request', /OAuth access token/);
    });
  });

  describe('GET /.well-known/oauth-authorization-server', () => {
    it('publishes RFC 8414 metadata for PUBLIC_URL, whatever host the request names', async () => {
      const res = await t.http.get('/.well-known/oauth-authorization-server').set('Host', 'evil.example.com');
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      expect(res.body.issuer).toBe(issuer);
      expect(JSON.stringify(res.body)).not.toContain('evil.example.com');
      expect(res.body).toEqual(
        expect.objectContaining({
          authorization_endpoint: `${issuer}/oauth/authorize`,
          token_endpoint: `${issuer}/oauth/token`,
          revocation_endpoint: `${issuer}/oauth/revoke`,
          introspection_endpoint: `${issuer}/oauth/introspect`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          authorization_response_iss_parameter_supported: true,
          scopes_supported: expect.arrayContaining(['read:resources', 'write:events']),
        }),
      );
    });
  });

  describe('served over https (PUBLIC_URL https)', () => {
    let secure: TestApp;

    beforeAll(async () => {
      secure = await createTestAppWithPublicUrl('https://rms.example.test');
    });
    afterAll(() => secure.close());

    it('names its cookies __Host-, reads them under those names only, and gives the https issuer', async () => {
      const login = await secure.http.get('/oauth/authorize').query(authorizeQuery()).expect(200);
      const [csrfCookie] = login.headers['set-cookie'] as unknown as string[];
      expect(csrfCookie).toMatch(/^__Host-rms_oauth_csrf=[0-9A-Za-z]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
      const preSession = csrfCookie.split(';')[0];

      const bare = preSession.replace('__Host-', '');
      const fields = { ...hiddenFields(login.text), email: user.email, password: user.password };
      await secure.http.post('/oauth/authorize/login').type('form').set('Cookie', bare).send(fields).expect(403);
      const loggedIn = await secure.http.post('/oauth/authorize/login').type('form').set('Cookie', preSession).send(fields).expect(303);
      const session = setCookiePair(loggedIn.headers['set-cookie'] as unknown as string[], 'rms_session');
      expect(session).toMatch(/^__Host-rms_session=/);

      const consentPage = await secure.http.get(loggedIn.headers.location).set('Cookie', session);
      expect(consentPage.text).toContain('value="allow"');
      const notRead = await secure.http.get(loggedIn.headers.location).set('Cookie', session.replace('__Host-', ''));
      expect(notRead.text).toContain('<label for="email">');

      const back = await consent(secure.http, session, authorizeQuery());
      expect(back.searchParams.get('iss')).toBe('https://rms.example.test');
      const metadata = await secure.http.get('/.well-known/oauth-authorization-server');
      expect(metadata.body).toMatchObject({ issuer: 'https://rms.example.test', token_endpoint: 'https://rms.example.test/oauth/token' });
    });
  });
});
