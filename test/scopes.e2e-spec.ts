import type { Response } from 'supertest';
import { connectTierApi, createUser, ApiUnderTest, TestUser } from './support';

/**
 * Scopes on the endpoints of the users and resources areas (docs/api.md#scopes): GET needs
 * read:<area>, other methods write:<area>, write does not imply read; JWT and session logins act
 * with every scope. The scope guard's unit test covers every area.
 */

const ALL_SCOPES = ['resources', 'organizations', 'users', 'webhooks', 'events'].flatMap((area) => [`read:${area}`, `write:${area}`]);

function expectForbidden(res: Response, scope: string): void {
  expect(res.status).toBe(403);
  expect(res.body.error.code).toBe('insufficient_permissions');
  expect(res.body.error.message).toContain(scope);
}

describe('scopes', () => {
  let t: ApiUnderTest;
  let user: TestUser;

  beforeAll(async () => {
    t = await connectTierApi();
    user = await createUser(t.http);
  });
  afterAll(async () => {
    await t.close();
  });

  async function keyWith(owner: TestUser, scopes: string[]): Promise<string> {
    const res = await t.http
      .post('/v2/api-keys')
      .set('Authorization', `Bearer ${owner.accessToken}`)
      .send({ name: 'scoped key', scopes })
      .expect(201);
    return res.body.data.key;
  }

  const getMe = (key: string) => t.http.get('/v2/users/me').set('X-API-Key', key);
  const headMe = (key: string) => t.http.head('/v2/users/me').set('X-API-Key', key);
  const patchMe = (key: string) => t.http.patch('/v2/users/me').set('X-API-Key', key).send({ profile: { first_name: 'Scoped' } });

  it('read:users allows GET and HEAD /users/me but not PATCH', async () => {
    const key = await keyWith(user, ['read:users']);
    expect((await getMe(key)).status).toBe(200);
    expect((await headMe(key)).status).toBe(200);
    expectForbidden(await patchMe(key), 'write:users');
  });

  it('write:users allows PATCH /users/me but not GET: write does not imply read', async () => {
    const key = await keyWith(user, ['write:users']);
    const patched = await patchMe(key);
    expect(patched.status).toBe(200);
    expect(patched.body.data.profile.first_name).toBe('Scoped');
    expectForbidden(await getMe(key), 'read:users');
    expect((await headMe(key)).status).toBe(403);
  });

  it('the scopes of every other area allow nothing on /users', async () => {
    const key = await keyWith(user, ALL_SCOPES.filter((scope) => !scope.endsWith(':users')));
    expectForbidden(await getMe(key), 'read:users');
    expectForbidden(await patchMe(key), 'write:users');
  });

  it('read:users and write:users together allow both', async () => {
    const key = await keyWith(user, ['read:users', 'write:users']);
    expect((await getMe(key)).status).toBe(200);
    expect((await patchMe(key)).status).toBe(200);
  });

  describe('resources area', () => {
    const listResources = (key: string) => t.http.get('/v2/resources').set('X-API-Key', key);
    const createResource = (key: string) => t.http.post('/v2/resources').set('X-API-Key', key).send({ name: 'scoped resource' });

    it('read:resources allows GET /resources but not POST', async () => {
      const key = await keyWith(user, ['read:resources']);
      expect((await listResources(key)).status).toBe(200);
      expectForbidden(await createResource(key), 'write:resources');
    });

    it('write:resources allows POST /resources but not GET, nor GET of the record it made', async () => {
      const key = await keyWith(user, ['write:resources']);
      const created = await createResource(key);
      expect(created.status).toBe(201);
      expectForbidden(await listResources(key), 'read:resources');
      expectForbidden(await t.http.get(`/v2/resources/${created.body.data.id}`).set('X-API-Key', key), 'read:resources');
      const deleted = await t.http.delete(`/v2/resources/${created.body.data.id}`).set('X-API-Key', key);
      expect(deleted.status).toBe(204);
    });

    it('users scopes allow nothing on /resources', async () => {
      const key = await keyWith(user, ['read:users', 'write:users']);
      expectForbidden(await listResources(key), 'read:resources');
      expectForbidden(await createResource(key), 'write:resources');
    });
  });

  it('a JWT acts with every scope', async () => {
    const bearer = `Bearer ${user.accessToken}`;
    expect((await t.http.get('/v2/users/me').set('Authorization', bearer)).status).toBe(200);
    expect((await t.http.patch('/v2/users/me').set('Authorization', bearer).send({ profile: { last_name: 'Jwt' } })).status).toBe(200);
  });

  it('a session acts with every scope', async () => {
    const login = await t.http.post('/v2/session/login').send({ email: user.email, password: user.password }).expect(200);
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    expect((await t.http.get('/v2/users/me').set('Cookie', cookie)).status).toBe(200);
    const patched = await t.http
      .patch('/v2/users/me')
      .set('Cookie', cookie)
      .set('X-CSRF-Token', login.body.data.csrf_token)
      .send({ profile: { last_name: 'Session' } });
    expect(patched.status).toBe(200);
  });

  it('PATCH /users/{id} needs write:users even for an admin key', async () => {
    const admin = await createUser(t.http);
    await t.db.query(`UPDATE users SET role = 'admin' WHERE id = $1`, [admin.id]);
    const target = await createUser(t.http);
    const readOnly = await keyWith(admin, ['read:users']);
    const writer = await keyWith(admin, ['write:users']);
    expectForbidden(await t.http.patch(`/v2/users/${target.id}`).set('X-API-Key', readOnly).send({ plan: 'pro' }), 'write:users');
    const res = await t.http.patch(`/v2/users/${target.id}`).set('X-API-Key', writer).send({ plan: 'pro' });
    expect(res.status).toBe(200);
    expect(res.body.data.plan).toBe('pro');
  });

  it('a route open to any credential (@ScopeArea(null)) is not refused for scopes', async () => {
    const key = await keyWith(user, ['read:events']);
    // Past the scope guard, session logout refuses a request that carries no session, for that reason and not for scopes.
    const res = await t.http.post('/v2/session/logout').set('X-API-Key', key);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/no session cookie/);
  });
});
