import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { connectTierApi, createUser, expectError, ApiUnderTest, TestUser } from './support';

/**
 * GET /v2/users (docs/api.md#offset-pagination, docs/api.md#users): admins see everyone, other callers themselves (and, once
 * organizations exist, the users who share one with them). Other suites register users on
 * the same database at the same time, so the admin's checks search for this run's tag.
 */

interface ListedUser {
  id: string;
  email: string;
  username: string;
  role: string;
  created_at: string;
}

function expectInvalidFields(res: Response, fields: string[]): void {
  expectError(res, 400, 'validation_error');
  const named = (res.body.error.details as Array<{ field: string }>).map((problem) => problem.field);
  expect([...new Set(named)].sort()).toEqual([...fields].sort());
}

function idsOf(res: Response): string[] {
  return (res.body.data as ListedUser[]).map((user) => user.id);
}

describe('GET /v2/users', () => {
  let t: ApiUnderTest;
  let admin: TestUser;
  // Letters and digits only, so that it is a valid part of an email and a username.
  const tag = `q${randomBytes(4).toString('hex')}`;
  const password = 'password-users-list';
  /** In order of registration, which is the order of the list. */
  let ada: string;
  let xada: string;
  let bob: string;
  let bobcat: string;
  let xadaUser: TestUser;

  async function register(email: string, username: string): Promise<string> {
    const res = await t.http.post('/v2/auth/register').send({ email, username, password }).expect(201);
    return res.body.data.id;
  }

  async function keyWith(owner: TestUser, scopes: string[]): Promise<string> {
    const res = await t.http
      .post('/v2/api-keys')
      .set('Authorization', `Bearer ${owner.accessToken}`)
      .send({ name: 'users list key', scopes })
      .expect(201);
    return res.body.data.key;
  }

  const list = (caller: TestUser, query: Record<string, string | number> = {}) =>
    t.http.get('/v2/users').query(query).set('Authorization', `Bearer ${caller.accessToken}`);

  beforeAll(async () => {
    t = await connectTierApi();
    admin = await createUser(t.http, { db: t.db, role: 'admin' });
    ada = await register(`${tag}.Ada@Example.COM`, `${tag}_ada`);
    xada = await register(`someone.${tag}@example.com`, `${tag}xada`);
    bob = await register(`${tag}%bob@example.com`, `${tag}-bob`);
    bobcat = await register(`carol.${tag}@example.com`, `${tag}-bobcat`);
    await t.db.query(`UPDATE users SET role = 'admin' WHERE id = $1`, [bobcat]);
    const login = await t.http
      .post('/v2/auth/login')
      .send({ email: `someone.${tag}@example.com`, password })
      .expect(200);
    xadaUser = {
      id: xada,
      email: `someone.${tag}@example.com`,
      username: `${tag}xada`,
      password,
      accessToken: login.body.data.access_token,
      refreshToken: login.body.data.refresh_token,
    };
  });
  afterAll(async () => {
    await t.close();
  });

  describe('as a platform admin', () => {
    it('lists the matching users oldest first, in the list envelope, without secrets', async () => {
      const res = await list(admin, { search: tag });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
      expect(idsOf(res)).toEqual([ada, xada, bob, bobcat]);
      expect(res.body.data[0]).toEqual({
        id: ada,
        email: `${tag}.Ada@Example.COM`,
        username: `${tag}_ada`,
        role: 'user',
        plan: 'free',
        profile: { first_name: null, last_name: null, avatar_url: null },
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(res.body.data[3]).toMatchObject({ id: bobcat, role: 'admin' });
      expect(JSON.stringify(res.body)).not.toMatch(/password|hash/i);
      expect(res.body.meta).toEqual({
        page: 1,
        per_page: 20,
        total: 4,
        total_pages: 1,
        links: {
          first: `/v2/users?search=${tag}&page=1&per_page=20`,
          prev: null,
          next: null,
          last: `/v2/users?search=${tag}&page=1&per_page=20`,
        },
      });
    });

    it('sees users beyond themselves without a search, ordered by created_at', async () => {
      const res = await list(admin, { per_page: 100 });
      expect(res.status).toBe(200);
      expect(res.body.meta.total).toBeGreaterThanOrEqual(5);
      const created = (res.body.data as ListedUser[]).map((user) => user.created_at);
      expect(created).toEqual([...created].sort());
    });

    it('pages with per_page 1: links keep the query, prev and next are null at the ends', async () => {
      const link = (page: number) => `/v2/users?search=${tag}&page=${page}&per_page=1`;
      const first = await list(admin, { search: tag, per_page: 1 });
      expect(first.status).toBe(200);
      expect(idsOf(first)).toEqual([ada]);
      expect(first.body.meta).toEqual({
        page: 1,
        per_page: 1,
        total: 4,
        total_pages: 4,
        links: { first: link(1), prev: null, next: link(2), last: link(4) },
      });

      const second = await list(admin, { search: tag, page: 2, per_page: 1 });
      expect(idsOf(second)).toEqual([xada]);
      expect(second.body.meta).toMatchObject({ page: 2, total: 4, links: { first: link(1), prev: link(1), next: link(3), last: link(4) } });

      const last = await list(admin, { search: tag, page: 4, per_page: 1 });
      expect(idsOf(last)).toEqual([bobcat]);
      expect(last.body.meta.links).toEqual({ first: link(1), prev: link(3), next: null, last: link(4) });
    });

    it('answers a page past the end with no data and the correct total', async () => {
      const res = await list(admin, { search: tag, page: 3, per_page: 2 });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta).toMatchObject({ page: 3, per_page: 2, total: 4, total_pages: 2 });
      expect(res.body.meta.links.next).toBeNull();
    });

    it('keeps search and role in the links', async () => {
      const res = await list(admin, { search: tag, role: 'user', per_page: 2 });
      expect(res.body.meta.links).toEqual({
        first: `/v2/users?search=${tag}&role=user&page=1&per_page=2`,
        prev: null,
        next: `/v2/users?search=${tag}&role=user&page=2&per_page=2`,
        last: `/v2/users?search=${tag}&role=user&page=2&per_page=2`,
      });
    });

    it('searches email substrings case-insensitively', async () => {
      const res = await list(admin, { search: `${tag.toUpperCase()}.ada@EXAMPLE` });
      expect(res.status).toBe(200);
      expect(idsOf(res)).toEqual([ada]);
      expect(res.body.meta.total).toBe(1);
    });

    it('searches username substrings case-insensitively', async () => {
      expect(idsOf(await list(admin, { search: `${tag}XADA` }))).toEqual([xada]);
      expect(idsOf(await list(admin, { search: `${tag}-BOB` }))).toEqual([bob, bobcat]);
    });

    it('takes % and _ in the search literally', async () => {
      // As wildcards, `_` would match the x of `${tag}xada` and `%` the dash of `${tag}-bobcat`.
      expect(idsOf(await list(admin, { search: `${tag}_ada` }))).toEqual([ada]);
      expect(idsOf(await list(admin, { search: `${tag}%bob` }))).toEqual([bob]);
      expect(idsOf(await list(admin, { search: `${tag}_` }))).toEqual([ada]);
      const none = await list(admin, { search: `${tag}%carol` });
      expect(none.status).toBe(200);
      expect(none.body.data).toEqual([]);
      expect(none.body.meta.total).toBe(0);
    });

    it('filters by role', async () => {
      expect(idsOf(await list(admin, { search: tag, role: 'admin' }))).toEqual([bobcat]);
      expect(idsOf(await list(admin, { search: tag, role: 'user' }))).toEqual([ada, xada, bob]);
    });
  });

  describe('as a user who is not an admin', () => {
    it('lists only themselves', async () => {
      const res = await list(xadaUser);
      expect(res.status).toBe(200);
      expect(idsOf(res)).toEqual([xada]);
      expect(res.body.meta).toMatchObject({ page: 1, per_page: 20, total: 1, total_pages: 1 });
    });

    it('finds nobody else, even searching for them by name', async () => {
      const res = await list(xadaUser, { search: `carol.${tag}` });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta.total).toBe(0);
      expect(idsOf(await list(xadaUser, { search: tag }))).toEqual([xada]);
      expect(idsOf(await list(xadaUser, { search: tag, role: 'admin' }))).toEqual([]);
    });
  });

  describe('credentials and scopes', () => {
    it('refuses an API key without read:users with 403', async () => {
      const key = await keyWith(admin, ['read:resources']);
      const res = await t.http.get('/v2/users').set('X-API-Key', key);
      expectError(res, 403, 'insufficient_permissions');
      expect(res.body.error.message).toContain('read:users');
    });

    it('lists for an API key with read:users, as its owner sees it', async () => {
      const adminKey = await keyWith(admin, ['read:users']);
      const res = await t.http.get('/v2/users').query({ search: tag }).set('X-API-Key', adminKey);
      expect(res.status).toBe(200);
      expect(idsOf(res)).toEqual([ada, xada, bob, bobcat]);
      const userKey = await keyWith(xadaUser, ['read:users']);
      expect(idsOf(await t.http.get('/v2/users').query({ search: tag }).set('X-API-Key', userKey))).toEqual([xada]);
    });

    it('refuses a request without a credential with 401', async () => {
      expectError(await t.http.get('/v2/users'), 401, 'authentication_required');
    });

    it('still answers GET /users/me', async () => {
      const res = await t.http.get('/v2/users/me').set('Authorization', `Bearer ${xadaUser.accessToken}`);
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(xada);
    });
  });

  describe('validation', () => {
    it.each([
      ['page 0', { page: 0 }, 'page'],
      ['a page that is not an integer', { page: 'two' }, 'page'],
      ['a fractional page', { page: 1.5 }, 'page'],
      ['per_page 0', { per_page: 0 }, 'per_page'],
      ['per_page 101', { per_page: 101 }, 'per_page'],
      ['an unknown role', { role: 'superuser' }, 'role'],
      ['an empty search', { search: '' }, 'search'],
      ['a search over 255 characters', { search: 'a'.repeat(256) }, 'search'],
    ])('refuses %s with 400 naming the field', async (_name, query, field) => {
      expectInvalidFields(await list(admin, query), [field]);
    });

    it('names every bad field at once', async () => {
      const res = await list(admin, { page: 0, per_page: 101, role: 'superuser', search: '' });
      expectInvalidFields(res, ['page', 'per_page', 'role', 'search']);
    });

    it('refuses a repeated search parameter', async () => {
      const res = await t.http.get(`/v2/users?search=a&search=b`).set('Authorization', `Bearer ${admin.accessToken}`);
      expectInvalidFields(res, ['search']);
    });

    it('refuses unknown parameters with 400 naming them', async () => {
      const res = await list(admin, { sort: 'email', 'filter[role]': 'admin' });
      expectInvalidFields(res, ['sort', 'filter[role]']);
    });
  });
});
