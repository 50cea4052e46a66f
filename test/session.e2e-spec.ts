import type { Response } from 'supertest';
import { connectTierApi, createUser, expectError, ApiUnderTest, TestUser } from './support';
import { createTestAppWithPublicUrl } from './oauth/oauth-test-app';

/** Session login: POST /v2/session/login and /logout, the cookie and CSRF (docs/api.md#sessions). */

function setCookie(res: Response): string {
  const cookies = res.headers['set-cookie'] as unknown as string[] | undefined;
  expect(cookies).toHaveLength(1);
  return (cookies ?? [''])[0];
}

describe('session', () => {
  let t: ApiUnderTest;

  beforeAll(async () => {
    t = await connectTierApi();
  });
  afterAll(async () => {
    await t.close();
  });

  async function login(user: TestUser): Promise<{ cookie: string; csrf: string; res: Response }> {
    const res = await t.http.post('/v2/session/login').send({ email: user.email, password: user.password });
    expect(res.status).toBe(200);
    return { cookie: setCookie(res).split(';')[0], csrf: res.body.data.csrf_token, res };
  }

  describe('POST /v2/session/login', () => {
    it('answers 200 with the user and a CSRF token, and sets an HttpOnly SameSite=Lax cookie', async () => {
      const user = await createUser(t.http);
      const { res, csrf } = await login(user);
      expect(res.body).toEqual({
        data: {
          user: expect.objectContaining({ id: user.id, email: user.email, username: user.username }),
          csrf_token: expect.any(String),
        },
      });
      expect(res.body.data.user).not.toHaveProperty('password_hash');
      expect(csrf.length).toBeGreaterThanOrEqual(32);
      const cookie = setCookie(res);
      expect(cookie).toMatch(/^rms_session=ses_[0-9A-Z]{26}\.[0-9A-Za-z]{43};/);
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Lax/);
      expect(cookie).toMatch(/; Path=\//);
      // Secure outside development; the tests run with NODE_ENV=test.
      expect(cookie).toMatch(/; Secure/);
      expect(cookie).toMatch(/; Max-Age=86400/);
    });

    it('accepts the email in any case', async () => {
      const user = await createUser(t.http);
      const res = await t.http.post('/v2/session/login').send({ email: user.email.toUpperCase(), password: user.password });
      expect(res.status).toBe(200);
    });

    it('answers 401 for a wrong password or an unknown email, without a cookie', async () => {
      const user = await createUser(t.http);
      for (const body of [
        { email: user.email, password: 'wrong-password-1' },
        { email: `nobody-${user.username}@example.com`, password: user.password },
      ]) {
        const res = await t.http.post('/v2/session/login').send(body);
        expectError(res, 401, 'authentication_required');
        expect(res.headers['set-cookie']).toBeUndefined();
      }
    });

    it.each([
      [{ password: 'password-123' }, ['email']],
      [{ email: 'not-an-email', password: 'password-123' }, ['email']],
      [{ email: 'a@example.com' }, ['password']],
      [{}, ['email', 'password']],
      [{ email: 'a@example.com', password: 'password-123', remember: true }, ['remember']],
    ])('answers 400 validation_error for %j', async (body, fields) => {
      const res = await t.http.post('/v2/session/login').send(body);
      expectError(res, 400, 'validation_error');
      expect([...new Set(res.body.error.details.map((problem: { field: string }) => problem.field))].sort()).toEqual(fields);
    });
  });

  describe('the cookie', () => {
    it('authenticates safe methods without a CSRF token', async () => {
      const user = await createUser(t.http);
      const { cookie } = await login(user);
      const me = await t.http.get('/v2/users/me').set('Cookie', `theme=dark; ${cookie}`);
      expect(me.status).toBe(200);
      expect(me.body.data.id).toBe(user.id);
    });

    it('needs X-CSRF-Token equal to the session token on unsafe methods', async () => {
      const user = await createUser(t.http);
      const { cookie, csrf } = await login(user);
      const body = { profile: { first_name: 'Csrf' } };
      expectError(await t.http.patch('/v2/users/me').set('Cookie', cookie).send(body), 403, 'insufficient_permissions', /CSRF/);
      const other = await login(user);
      expectError(
        await t.http.patch('/v2/users/me').set('Cookie', cookie).set('X-CSRF-Token', other.csrf).send(body),
        403,
        'insufficient_permissions',
        /CSRF/,
      );
      const ok = await t.http.patch('/v2/users/me').set('Cookie', cookie).set('X-CSRF-Token', csrf).send(body);
      expect(ok.status).toBe(200);
      expect(ok.body.data.profile.first_name).toBe('Csrf');
    });

    it('is refused when forged: a known session id with another secret, or garbage', async () => {
      const user = await createUser(t.http);
      const { cookie } = await login(user);
      const forged = `${cookie.split('.')[0]}.${'x'.repeat(43)}`;
      expectError(await t.http.get('/v2/users/me').set('Cookie', forged), 401, 'authentication_required');
      expectError(await t.http.get('/v2/users/me').set('Cookie', 'rms_session=garbage'), 401, 'authentication_required');
    });
  });

  describe('POST /v2/session/logout', () => {
    it('answers 204, clears the cookie and ends the session on the server', async () => {
      const user = await createUser(t.http);
      const { cookie, csrf } = await login(user);
      const kept = await login(user);
      const res = await t.http.post('/v2/session/logout').set('Cookie', cookie).set('X-CSRF-Token', csrf);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(setCookie(res)).toMatch(/^rms_session=;.*Expires=Thu, 01 Jan 1970/);
      expectError(await t.http.get('/v2/users/me').set('Cookie', cookie), 401, 'authentication_required', /session/);
      expectError(await t.http.post('/v2/session/logout').set('Cookie', cookie).set('X-CSRF-Token', csrf), 401, 'authentication_required');
      // Another session of the same user lives on.
      expect((await t.http.get('/v2/users/me').set('Cookie', kept.cookie)).status).toBe(200);
    });

    it('needs the CSRF token like any unsafe method', async () => {
      const user = await createUser(t.http);
      const { cookie } = await login(user);
      expectError(await t.http.post('/v2/session/logout').set('Cookie', cookie), 403, 'insufficient_permissions', /CSRF/);
      expect((await t.http.get('/v2/users/me').set('Cookie', cookie)).status).toBe(200);
    });

    it('answers 401 without a credential and 403 for a request that carries no session', async () => {
      expectError(await t.http.post('/v2/session/logout'), 401, 'authentication_required');
      const user = await createUser(t.http);
      expectError(await t.http.post('/v2/session/logout').set('Authorization', `Bearer ${user.accessToken}`), 403, 'insufficient_permissions', /auth\/logout/);
    });
  });

  describe('served over https (PUBLIC_URL https)', () => {
    let secure: ApiUnderTest;

    beforeAll(async () => {
      secure = await createTestAppWithPublicUrl('https://rms.example.test');
    });
    afterAll(() => secure.close());

    it('names the cookie __Host-rms_session, and reads it under that name only', async () => {
      const user = await createUser(secure.http);
      const res = await secure.http.post('/v2/session/login').send({ email: user.email, password: user.password }).expect(200);
      const cookie = setCookie(res);
      expect(cookie).toMatch(/^__Host-rms_session=ses_[0-9A-Z]{26}\.[0-9A-Za-z]{43}; Max-Age=86400; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
      const pair = cookie.split(';')[0];
      expect((await secure.http.get('/v2/users/me').set('Cookie', pair)).status).toBe(200);
      // A bare-named cookie, as a sibling subdomain or a plain-http page could plant, is no session here.
      expectError(await secure.http.get('/v2/users/me').set('Cookie', pair.replace('__Host-', '')), 401, 'authentication_required');

      const logout = await secure.http.post('/v2/session/logout').set('Cookie', pair).set('X-CSRF-Token', res.body.data.csrf_token);
      expect(logout.status).toBe(204);
      expect(setCookie(logout)).toMatch(/^__Host-rms_session=;.*Path=\/;.*Secure/);
    });
  });
});
