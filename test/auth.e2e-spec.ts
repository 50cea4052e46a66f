import { randomBytes, randomUUID } from 'node:crypto';
import { decode, sign } from 'jsonwebtoken';
import { DataSource } from 'typeorm';
import { createTestApp, createUser, errorFields, errorMessagesFor, expectError, newCredentials, TestApp, TestUser } from './support';

/** Accounts: register, login, refresh, logout and the access-token checks (docs/api.md#errors, docs/api.md#users, docs/api.md#jwt, docs/api.md#events). */

const USER_ID = /^usr_[0-9A-HJKMNP-TV-Z]{26}$/;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ACCESS_TTL = 900;
const REFRESH_TTL = 30 * 24 * 60 * 60;

interface Claims {
  iss: string;
  aud: string | string[];
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  typ: string;
  fam: string;
}

function secret(): string {
  const value = process.env.JWT_SECRET;
  if (!value) throw new Error('JWT_SECRET is not set by the test environment');
  return value;
}

function claimsOf(token: string): Claims {
  return decode(token, { json: true }) as unknown as Claims;
}

function headerOf(token: string): Record<string, unknown> {
  const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8')) as Record<string, unknown>;
  return header;
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Claims shaped exactly as the service signs an access token, with overrides. */
function accessClaims(userId: string, overrides: Partial<Claims> = {}): Claims {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: 'rms',
    aud: 'rms:test',
    sub: userId,
    jti: randomUUID(),
    iat: now,
    exp: now + ACCESS_TTL,
    typ: 'access',
    fam: `rtk_${randomUUID()}`,
    ...overrides,
  };
}

function signed(claims: object, key = secret()): string {
  return sign(claims, key, { algorithm: 'HS256' });
}

/** The body of login and refresh: `{ data: <token pair> }` (docs/api.md#envelope, docs/api.md#jwt). */
function tokenPairEnvelope(): unknown {
  return {
    data: { access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'Bearer', expires_in: ACCESS_TTL },
  };
}

describe('accounts (auth)', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    // One app per process: passport keeps strategies in a process-wide registry.
    t = await createTestApp({ captureLogs: true });
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t.close();
  });

  const me = (token: string) => t.http.get('/v2/users/me').set('Authorization', `Bearer ${token}`);
  const refresh = (refreshToken: unknown) => t.http.post('/v2/auth/refresh').send({ refresh_token: refreshToken });
  const login = (email: string, password: string) => t.http.post('/v2/auth/login').send({ email, password });

  async function usersWithEmail(email: string): Promise<number> {
    const rows: Array<{ n: number }> = await db.query(
      'SELECT count(*)::int AS n FROM users WHERE lower(email) = lower($1)',
      [email],
    );
    return rows[0].n;
  }

  async function eventsOf(userId: string, type: string) {
    return db.query<Array<{ data: { object: Record<string, unknown> }; previous_data: unknown; owner_id: string }>>(
      'SELECT data, previous_data, owner_id FROM events WHERE owner_id = $1 AND type = $2 ORDER BY id',
      [userId, type],
    );
  }

  describe('POST /v2/auth/register', () => {
    it('creates a user and answers 201 with the user view, never the password', async () => {
      const credentials = newCredentials();
      const res = await t.http.post('/v2/auth/register').send(credentials);

      expect(res.status).toBe(201);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(Object.keys(res.body)).toEqual(['data']);
      expect(res.body.data).toEqual({
        id: expect.stringMatching(USER_ID),
        email: credentials.email,
        username: credentials.username,
        role: 'user',
        plan: 'free',
        profile: { first_name: null, last_name: null, avatar_url: null },
        created_at: expect.stringMatching(ISO_TIMESTAMP),
        updated_at: expect.stringMatching(ISO_TIMESTAMP),
      });
      expect(res.text).not.toContain(credentials.password);
      expect(res.text).not.toMatch(/password/i);
    });

    it('stores a hash, not the password', async () => {
      const credentials = newCredentials();
      const res = await t.http.post('/v2/auth/register').send(credentials).expect(201);
      const rows: Array<{ password_hash: string }> = await db.query('SELECT password_hash FROM users WHERE id = $1', [
        res.body.data.id,
      ]);
      expect(rows[0].password_hash).toMatch(/^\$argon2id\$/);
      expect(rows[0].password_hash).not.toContain(credentials.password);
    });

    it('writes exactly one user.created event with the user view and no previous_data (docs/api.md#events)', async () => {
      const res = await t.http.post('/v2/auth/register').send(newCredentials()).expect(201);
      const events = await eventsOf(res.body.data.id, 'user.created');
      expect(events).toHaveLength(1);
      expect(events[0].data.object).toEqual(res.body.data);
      expect(events[0].previous_data).toBeNull();
      expect(await eventsOf(res.body.data.id, 'user.updated')).toHaveLength(0);
    });

    it('lets the new account log in', async () => {
      const credentials = newCredentials();
      await t.http.post('/v2/auth/register').send(credentials).expect(201);
      const res = await login(credentials.email, credentials.password);
      expect(res.status).toBe(200);
    });

    it.each<[string, Partial<Record<'email' | 'username' | 'password', string>>]>([
      ['a 3-character username', { username: `a${randomBytes(1).toString('hex')}` }],
      ['a 30-character username with _ and -', { username: `u_-${randomBytes(13).toString('hex')}`.slice(0, 30) }],
      ['a 10-character password', { password: '0123456789' }],
      ['a 128-character password', { password: 'p'.repeat(128) }],
      [
        'a 255-character email',
        {
          email: `${randomBytes(32).toString('hex')}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`,
        },
      ],
    ])('accepts %s', async (_name, override) => {
      const body = { ...newCredentials(), ...override };
      const res = await t.http.post('/v2/auth/register').send(body);
      expect(res.status).toBe(201);
      expect(res.body.data.username).toBe(body.username);
      expect(res.body.data.email).toBe(body.email);
      if (override.email) expect(override.email).toHaveLength(255);
    });

    describe('taken email or username (409 conflict)', () => {
      let existing: { email: string; username: string; password: string };
      beforeAll(async () => {
        existing = newCredentials();
        await t.http.post('/v2/auth/register').send(existing).expect(201);
      });

      it.each([
        ['the same email', () => ({ ...newCredentials(), email: existing.email }), ['email']],
        [
          'the email in other letter case',
          () => ({ ...newCredentials(), email: existing.email.toUpperCase() }),
          ['email'],
        ],
        ['the same username', () => ({ ...newCredentials(), username: existing.username }), ['username']],
        ['both', () => ({ ...existing, password: 'another-password' }), ['email', 'username']],
      ])('refuses %s', async (_name, body, fields) => {
        const sent = body();
        const res = await t.http.post('/v2/auth/register').send(sent);
        expectError(res, 409, 'conflict');
        expect(errorFields(res).sort()).toEqual([...fields].sort());
        expect(await usersWithEmail(existing.email)).toBe(1);
        if (fields.length === 1 && fields[0] === 'username') expect(await usersWithEmail(sent.email)).toBe(0);
      });
    });

    it('lets exactly one of two concurrent registrations of one email win', async () => {
      const email = newCredentials().email;
      const results = await Promise.all(
        [newCredentials(), newCredentials()].map((credentials) =>
          t.http.post('/v2/auth/register').send({ ...credentials, email }),
        ),
      );
      expect(results.map((res) => res.status).sort()).toEqual([201, 409]);
      expect(results.find((res) => res.status === 409)?.body.error.code).toBe('conflict');
      expect(await usersWithEmail(email)).toBe(1);
    });

    it.each<[string, Record<string, unknown>, string, RegExp]>([
      ['email missing', { email: undefined }, 'email', /^is required$/],
      ['email not a string', { email: 12345 }, 'email', /string/],
      ['email malformed', { email: 'not-an-email' }, 'email', /valid email/],
      ['email without a domain', { email: 'ada@' }, 'email', /valid email/],
      [
        'email over 255 characters',
        { email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(59)}.com` },
        'email',
        /255/,
      ],
      ['username missing', { username: undefined }, 'username', /^is required$/],
      ['username not a string', { username: 42 }, 'username', /string/],
      ['username of 2 characters', { username: 'ab' }, 'username', /3-30/],
      ['username of 31 characters', { username: 'a'.repeat(31) }, 'username', /3-30/],
      ['username with capitals', { username: 'Ada_Lovelace' }, 'username', /a-z/],
      ['username with a dot', { username: 'ada.lovelace' }, 'username', /a-z/],
      ['username with a space', { username: 'ada lovelace' }, 'username', /a-z/],
      ['password missing', { password: undefined }, 'password', /^is required$/],
      ['password not a string', { password: 1234567890123 }, 'password', /string/],
      ['password of 9 characters', { password: '123456789' }, 'password', /10-128/],
      ['password of 129 characters', { password: 'p'.repeat(129) }, 'password', /10-128/],
      ['an unknown field', { nickname: 'ada' }, 'nickname', /not a known field/],
      ['role (no self-promotion)', { role: 'admin' }, 'role', /not a known field/],
      ['plan', { plan: 'enterprise' }, 'plan', /not a known field/],
      ['id (server-set)', { id: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X' }, 'id', /read-only/],
      ['created_at (server-set)', { created_at: '2024-01-01T00:00:00.000Z' }, 'created_at', /read-only/],
    ])(
      'refuses %s: 400 validation_error naming the field, no account made',
      async (_name, override, field, message) => {
        const body: Record<string, unknown> = { ...newCredentials(), ...override };
        const res = await t.http.post('/v2/auth/register').send(body);
        expectError(res, 400, 'validation_error');
        expect(errorFields(res)).toContain(field);
        expect(errorFields(res).every((name) => name === field)).toBe(true);
        expect(errorMessagesFor(res, field)).toMatch(message);
        if (typeof body.email === 'string') expect(await usersWithEmail(body.email)).toBe(0);
      },
    );

    it('lists every missing field at once', async () => {
      const res = await t.http.post('/v2/auth/register').send({});
      expectError(res, 400, 'validation_error');
      expect([...new Set(errorFields(res))].sort()).toEqual(['email', 'password', 'username']);
    });

    it('lists every bad field at once, unknown ones included', async () => {
      const res = await t.http
        .post('/v2/auth/register')
        .send({ email: 'x', username: 'A', password: 'short', role: 'admin' });
      expectError(res, 400, 'validation_error');
      expect([...new Set(errorFields(res))].sort()).toEqual(['email', 'password', 'role', 'username']);
    });

    it('answers invalid_request to a body that is not an object', async () => {
      const res = await t.http.post('/v2/auth/register').send([newCredentials()]);
      expectError(res, 400, 'invalid_request');
    });
  });

  describe('POST /v2/auth/login', () => {
    let user: TestUser;
    beforeAll(async () => {
      user = await createUser(t.http);
    });

    it('answers 200 with a token pair in the data envelope', async () => {
      const res = await login(user.email, user.password);
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(res.body).toEqual(tokenPairEnvelope());
      expect(res.text).not.toContain(user.password);
      expect((await me(res.body.data.access_token)).status).toBe(200);
    });

    it('signs JWTs with HS256 and the claims of docs/api.md#jwt', async () => {
      const res = await login(user.email, user.password).expect(200);
      const { access_token: access, refresh_token: refreshToken } = res.body.data;
      for (const token of [access, refreshToken]) {
        expect(headerOf(token)).toEqual(expect.objectContaining({ alg: 'HS256' }));
      }
      const accessClaimsSeen = claimsOf(access);
      expect(accessClaimsSeen).toEqual(
        expect.objectContaining({ iss: 'rms', aud: 'rms:test', sub: user.id, typ: 'access', jti: expect.any(String) }),
      );
      expect(accessClaimsSeen.exp - accessClaimsSeen.iat).toBe(ACCESS_TTL);
      const refreshClaims = claimsOf(refreshToken);
      expect(refreshClaims).toEqual(
        expect.objectContaining({ iss: 'rms', aud: 'rms:test', sub: user.id, typ: 'refresh', jti: expect.any(String) }),
      );
      expect(refreshClaims.exp - refreshClaims.iat).toBe(REFRESH_TTL);
      expect(refreshClaims.jti).not.toBe(accessClaimsSeen.jti);
      expect(refreshClaims.fam).toBe(accessClaimsSeen.fam);
    });

    it('gives each login its own tokens', async () => {
      const [first, second] = [await login(user.email, user.password), await login(user.email, user.password)];
      expect(first.body.data.refresh_token).not.toBe(second.body.data.refresh_token);
      expect(claimsOf(first.body.data.access_token).fam).not.toBe(claimsOf(second.body.data.access_token).fam);
    });

    it('matches the email case-insensitively', async () => {
      const res = await login(user.email.toUpperCase(), user.password);
      expect(res.status).toBe(200);
      expect(claimsOf(res.body.data.access_token).sub).toBe(user.id);
    });

    it('refuses a wrong password and an unknown email alike: 401, same message', async () => {
      const wrongPassword = await login(user.email, `${user.password}x`);
      const unknownEmail = await login(newCredentials().email, user.password);
      expectError(wrongPassword, 401, 'authentication_required');
      expectError(unknownEmail, 401, 'authentication_required');
      expect(wrongPassword.body.error.message).toBe(unknownEmail.body.error.message);
      expect(wrongPassword.text).not.toContain(user.password);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['email missing', { email: undefined }, 'email'],
      ['email not a string', { email: 7 }, 'email'],
      ['email malformed', { email: 'nobody' }, 'email'],
      ['email over 255 characters', { email: `${'a'.repeat(250)}@example.com` }, 'email'],
      ['password missing', { password: undefined }, 'password'],
      ['password not a string', { password: 12345678901 }, 'password'],
      ['password empty', { password: '' }, 'password'],
      ['password over 128 characters', { password: 'p'.repeat(129) }, 'password'],
      ['an unknown field', { remember_me: true }, 'remember_me'],
    ])('refuses %s: 400 validation_error naming the field', async (_name, override, field) => {
      const res = await t.http.post('/v2/auth/login').send({ email: user.email, password: user.password, ...override });
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toContain(field);
      expect(errorFields(res).every((name) => name === field)).toBe(true);
    });

    it('lists both fields when the body is empty', async () => {
      const res = await t.http.post('/v2/auth/login').send({});
      expectError(res, 400, 'validation_error');
      expect([...new Set(errorFields(res))].sort()).toEqual(['email', 'password']);
    });
  });

  describe('POST /v2/auth/refresh', () => {
    it('rotates: answers 200 with a new pair whose tokens work', async () => {
      const user = await createUser(t.http);
      const res = await refresh(user.refreshToken);
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(res.body).toEqual(tokenPairEnvelope());
      expect(res.body.data.refresh_token).not.toBe(user.refreshToken);
      expect(res.body.data.access_token).not.toBe(user.accessToken);
      const claims = claimsOf(res.body.data.access_token);
      expect(claims.sub).toBe(user.id);
      expect(claims.fam).toBe(claimsOf(user.refreshToken).fam);
      expect((await me(res.body.data.access_token)).status).toBe(200);
      expect((await refresh(res.body.data.refresh_token)).status).toBe(200);
    });

    it('keeps rotating along a chain, and the earlier access token keeps working', async () => {
      const user = await createUser(t.http);
      let current = user.refreshToken;
      for (let i = 0; i < 3; i++) {
        const res = await refresh(current).expect(200);
        current = res.body.data.refresh_token;
      }
      expect((await me(user.accessToken)).status).toBe(200);
    });

    it('detects reuse: the old token is 401 and its whole family is revoked', async () => {
      const user = await createUser(t.http);
      const rotated = (await refresh(user.refreshToken).expect(200)).body.data;

      const reuse = await refresh(user.refreshToken);
      expectError(reuse, 401, 'authentication_required');
      expect(reuse.body.error.message).toMatch(/already used/);

      expectError(await refresh(rotated.refresh_token), 401, 'authentication_required');
      expectError(await me(rotated.access_token), 401, 'authentication_required');
      expectError(await me(user.accessToken), 401, 'authentication_required');
      const rows: Array<{ revoked: number; total: number }> = await db.query(
        'SELECT count(revoked_at)::int AS revoked, count(*)::int AS total FROM refresh_tokens WHERE user_id = $1',
        [user.id],
      );
      expect(rows[0]).toEqual({ revoked: 2, total: 2 });
    });

    it('leaves the other logins of the account alone on reuse', async () => {
      const user = await createUser(t.http);
      const other = (await login(user.email, user.password).expect(200)).body.data;
      await refresh(user.refreshToken).expect(200);
      await refresh(user.refreshToken).expect(401);
      expect((await me(other.access_token)).status).toBe(200);
      expect((await refresh(other.refresh_token)).status).toBe(200);
    });

    it('lets exactly one of concurrent refreshes with one token succeed, and treats the others as reuse', async () => {
      const user = await createUser(t.http);
      const results = await Promise.all([1, 2, 3, 4].map(() => refresh(user.refreshToken)));
      const statuses = results.map((res) => res.status).sort();
      expect(statuses).toEqual([200, 401, 401, 401]);
      for (const res of results.filter((r) => r.status === 401)) expectError(res, 401, 'authentication_required');
      const winner = results.find((res) => res.status === 200)?.body.data;
      expectError(await refresh(winner.refresh_token), 401, 'authentication_required');
      expectError(await me(winner.access_token), 401, 'authentication_required');
    });

    it('accepts a token re-signed with the same secret and claims (control for the forgeries below)', async () => {
      const user = await createUser(t.http);
      const res = await refresh(signed(claimsOf(user.refreshToken)));
      expect(res.status).toBe(200);
    });

    it.each<[string, (user: TestUser) => string]>([
      ['garbage', () => 'not-a-jwt'],
      ['three dotted garbage parts', () => 'aaa.bbb.ccc'],
      ['an access token', (user) => user.accessToken],
      [
        'a tampered payload',
        (user) => {
          const [header, , signature] = user.refreshToken.split('.');
          const claims = claimsOf(user.refreshToken);
          return `${header}.${base64url({ ...claims, exp: claims.exp + 3600 })}.${signature}`;
        },
      ],
      [
        'a token signed with another secret',
        (user) => signed(claimsOf(user.refreshToken), randomBytes(32).toString('hex')),
      ],
      [
        'an expired token',
        (user) => {
          const now = Math.floor(Date.now() / 1000);
          return signed({ ...claimsOf(user.refreshToken), iat: now - REFRESH_TTL - 60, exp: now - 60 });
        },
      ],
      [
        'an alg none token',
        (user) => `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claimsOf(user.refreshToken))}.`,
      ],
      ['a token of the other environment', (user) => signed({ ...claimsOf(user.refreshToken), aud: 'rms:live' })],
      ['a token of another issuer', (user) => signed({ ...claimsOf(user.refreshToken), iss: 'someone-else' })],
      [
        'a well-signed token that was never issued',
        (user) => signed({ ...claimsOf(user.refreshToken), jti: `rtk_${randomUUID()}` }),
      ],
      [
        'a well-signed token naming another account',
        (user) => signed({ ...claimsOf(user.refreshToken), sub: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X' }),
      ],
    ])('refuses %s: 401 authentication_required', async (_name, makeToken) => {
      const user = await createUser(t.http);
      const res = await refresh(makeToken(user));
      expectError(res, 401, 'authentication_required');
      // The genuine token was not consumed by the refused attempt.
      expect((await refresh(user.refreshToken)).status).toBe(200);
    });

    it.each<[string, Record<string, unknown>]>([
      ['missing', {}],
      ['null', { refresh_token: null }],
      ['not a string', { refresh_token: 12345 }],
      ['empty', { refresh_token: '' }],
      ['over 4096 characters', { refresh_token: 'a'.repeat(4097) }],
    ])('refuses a refresh_token that is %s: 400 validation_error', async (_name, body) => {
      const res = await t.http.post('/v2/auth/refresh').send(body);
      expectError(res, 400, 'validation_error');
      expect([...new Set(errorFields(res))]).toEqual(['refresh_token']);
    });

    it('refuses an unknown field next to the token: 400 validation_error naming it', async () => {
      const user = await createUser(t.http);
      const res = await t.http
        .post('/v2/auth/refresh')
        .send({ refresh_token: user.refreshToken, grant_type: 'refresh_token' });
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['grant_type']);
      expect((await refresh(user.refreshToken)).status).toBe(200);
    });
  });

  describe('POST /v2/auth/logout', () => {
    it('answers 204 and revokes the access token and its refresh token', async () => {
      const user = await createUser(t.http);
      const res = await t.http.post('/v2/auth/logout').set('Authorization', `Bearer ${user.accessToken}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers['x-request-id']).toMatch(/^req_/);

      const after = await me(user.accessToken);
      expectError(after, 401, 'authentication_required');
      expect(after.body.error.message).toMatch(/revoked/);
      expectError(await refresh(user.refreshToken), 401, 'authentication_required');
    });

    it('revokes the tokens rotated from the same login too', async () => {
      const user = await createUser(t.http);
      const rotated = (await refresh(user.refreshToken).expect(200)).body.data;
      await t.http.post('/v2/auth/logout').set('Authorization', `Bearer ${rotated.access_token}`).expect(204);
      expectError(await me(user.accessToken), 401, 'authentication_required');
      expectError(await refresh(rotated.refresh_token), 401, 'authentication_required');
    });

    it('leaves the other logins of the account working', async () => {
      const user = await createUser(t.http);
      const other = (await login(user.email, user.password).expect(200)).body.data;
      await t.http.post('/v2/auth/logout').set('Authorization', `Bearer ${user.accessToken}`).expect(204);
      expect((await me(other.access_token)).status).toBe(200);
      expect((await refresh(other.refresh_token)).status).toBe(200);
    });

    it('refuses a second logout with the same token: 401', async () => {
      const user = await createUser(t.http);
      await t.http.post('/v2/auth/logout').set('Authorization', `Bearer ${user.accessToken}`).expect(204);
      const res = await t.http.post('/v2/auth/logout').set('Authorization', `Bearer ${user.accessToken}`);
      expectError(res, 401, 'authentication_required');
    });

    it.each<[string, Record<string, string>]>([
      ['no credential', {}],
      ['a refresh token as the bearer', { Authorization: 'Bearer <refresh>' }],
      ['a malformed bearer', { Authorization: 'Bearer nope' }],
    ])('refuses %s: 401', async (_name, headers) => {
      const user = await createUser(t.http);
      let req = t.http.post('/v2/auth/logout');
      for (const [name, value] of Object.entries(headers))
        req = req.set(name, value.replace('<refresh>', user.refreshToken));
      expectError(await req, 401, 'authentication_required');
      expect((await refresh(user.refreshToken)).status).toBe(200);
    });
  });

  describe('logs', () => {
    it('never carry a password or a token (docs/api.md#logging)', async () => {
      const credentials = newCredentials();
      await t.http.post('/v2/auth/register').send(credentials).expect(201);
      // A refused login (username is not a login field) carries the password too.
      await t.http.post('/v2/auth/login').send(credentials).expect(400);
      const tokens = (
        await t.http
          .post('/v2/auth/login')
          .set('X-Request-ID', 'login-logged.1')
          .send({ email: credentials.email, password: credentials.password })
          .expect(200)
      ).body.data;
      await t.http.post('/v2/auth/refresh').send({ refresh_token: tokens.refresh_token }).expect(200);
      await t.http.get('/v2/users/me').set('Authorization', `Bearer ${tokens.access_token}`).expect(200);

      const logs = t.logs();
      expect(logs).toContain('login-logged.1');
      expect(logs).not.toContain(credentials.password);
      expect(logs).not.toContain(tokens.access_token);
      expect(logs).not.toContain(tokens.refresh_token);
    });
  });

  describe('access token checks (GET /v2/users/me)', () => {
    let user: TestUser;
    let other: TestUser;
    beforeAll(async () => {
      [user, other] = [await createUser(t.http), await createUser(t.http)];
    });

    it('accepts a token signed with the service secret and the right claims (control for the cases below)', async () => {
      const res = await me(signed(accessClaims(user.id)));
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(user.id);
    });

    it.each<[string, () => Record<string, string>]>([
      ['no Authorization header', () => ({})],
      ['an empty Authorization header', () => ({ Authorization: '' })],
      ['a token without the Bearer word', () => ({ Authorization: user.accessToken })],
      ['another scheme (Token)', () => ({ Authorization: `Token ${user.accessToken}` })],
      [
        'Basic credentials',
        () => ({ Authorization: `Basic ${Buffer.from(`${user.email}:${user.password}`).toString('base64')}` }),
      ],
      ['Bearer without a token', () => ({ Authorization: 'Bearer' })],
      ['Bearer with garbage', () => ({ Authorization: 'Bearer garbage' })],
      ['Bearer with three dotted garbage parts', () => ({ Authorization: 'Bearer aaa.bbb.ccc' })],
      [
        'an expired token',
        () => {
          const now = Math.floor(Date.now() / 1000);
          return {
            Authorization: `Bearer ${signed(accessClaims(user.id, { iat: now - ACCESS_TTL - 60, exp: now - 60 }))}`,
          };
        },
      ],
      [
        'a tampered payload (another sub, same signature)',
        () => {
          const [header, , signature] = user.accessToken.split('.');
          return {
            Authorization: `Bearer ${header}.${base64url({ ...claimsOf(user.accessToken), sub: other.id })}.${signature}`,
          };
        },
      ],
      [
        'an alg none token',
        () => ({
          Authorization: `Bearer ${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(accessClaims(user.id))}.`,
        }),
      ],
      [
        'an HS512 token (algorithm not pinned)',
        () => ({ Authorization: `Bearer ${sign(accessClaims(user.id), secret(), { algorithm: 'HS512' })}` }),
      ],
      [
        'a token signed with another secret',
        () => ({ Authorization: `Bearer ${signed(accessClaims(user.id), randomBytes(32).toString('hex'))}` }),
      ],
      ['a refresh token', () => ({ Authorization: `Bearer ${user.refreshToken}` })],
      [
        'a token without a kind',
        () => ({ Authorization: `Bearer ${signed({ ...accessClaims(user.id), typ: undefined })}` }),
      ],
      [
        'a token of the other environment',
        () => ({ Authorization: `Bearer ${signed(accessClaims(user.id, { aud: 'rms:live' }))}` }),
      ],
      [
        'a token of another issuer',
        () => ({ Authorization: `Bearer ${signed(accessClaims(user.id, { iss: 'someone-else' }))}` }),
      ],
      [
        'a token for an account that does not exist',
        () => ({ Authorization: `Bearer ${signed(accessClaims('usr_01JD3Q0F6K8W2M4N6P8R0T2V4X'))}` }),
      ],
    ])('refuses %s: 401 authentication_required in the error envelope', async (_name, headers) => {
      let req = t.http.get('/v2/users/me').set('X-Request-ID', 'auth-check.1');
      for (const [name, value] of Object.entries(headers())) req = req.set(name, value);
      const res = await req;
      expectError(res, 401, 'authentication_required');
      expect(res.headers['x-request-id']).toBe('auth-check.1');
      expect(res.body.data).toBeUndefined();
    });

    it('refuses a revoked (logged out) token', async () => {
      const victim = await createUser(t.http);
      await t.http.post('/v2/auth/logout').set('Authorization', `Bearer ${victim.accessToken}`).expect(204);
      expectError(await me(victim.accessToken), 401, 'authentication_required');
    });

    it('refuses the token of an account that was removed', async () => {
      const removed = await createUser(t.http);
      await db.query('DELETE FROM users WHERE id = $1', [removed.id]);
      expectError(await me(removed.accessToken), 401, 'authentication_required');
      expectError(await refresh(removed.refreshToken), 401, 'authentication_required');
    });
  });
});
