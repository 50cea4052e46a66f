import { DataSource } from 'typeorm';
import { connectTierApi, createUser, expectError, ApiUnderTest, TestUser } from './support';

/** PATCH /v2/users/{id}: platform admins change a user's role and plan (docs/api.md#users). */

describe('admin user changes', () => {
  let t: ApiUnderTest;
  let db: DataSource;
  let admin: TestUser;

  beforeAll(async () => {
    t = await connectTierApi();
    db = t.db;
    admin = await createUser(t.http);
    await db.query(`UPDATE users SET role = 'admin' WHERE id = $1`, [admin.id]);
  });
  afterAll(async () => {
    await t.close();
  });

  const patchUser = (caller: TestUser, id: string, body: unknown) =>
    t.http
      .patch(`/v2/users/${id}`)
      .set('Authorization', `Bearer ${caller.accessToken}`)
      .send(body as object);

  it("changes a user's role and plan: 200 with the user, and a user.updated event with the prior values", async () => {
    const target = await createUser(t.http);
    const res = await patchUser(admin, target.id, { role: 'admin', plan: 'enterprise' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: expect.objectContaining({ id: target.id, email: target.email, role: 'admin', plan: 'enterprise', profile: expect.any(Object) }),
    });
    const me = await t.http.get('/v2/users/me').set('Authorization', `Bearer ${target.accessToken}`).expect(200);
    expect(me.body.data).toMatchObject({ role: 'admin', plan: 'enterprise' });
    const events: Array<{ data: { object: Record<string, unknown> }; previous_data: unknown }> = await db.query(
      `SELECT data, previous_data FROM events WHERE owner_id = $1 AND type = 'user.updated'`,
      [target.id],
    );
    expect(events).toHaveLength(1);
    expect(events[0].previous_data).toEqual({ role: 'user', plan: 'free' });
    expect(events[0].data.object).toMatchObject({ id: target.id, role: 'admin', plan: 'enterprise' });
  });

  it('changes one field and keeps the other; an unchanged value writes no event', async () => {
    const target = await createUser(t.http);
    const res = await patchUser(admin, target.id, { plan: 'pro' });
    expect(res.body.data).toMatchObject({ role: 'user', plan: 'pro' });
    const same = await patchUser(admin, target.id, { plan: 'pro' });
    expect(same.status).toBe(200);
    const empty = await patchUser(admin, target.id, {});
    expect(empty.body.data).toMatchObject({ role: 'user', plan: 'pro' });
    const events: unknown[] = await db.query(`SELECT id FROM events WHERE owner_id = $1 AND type = 'user.updated'`, [target.id]);
    expect(events).toHaveLength(1);
  });

  it('takes effect at once: a promoted user acts as admin on the next request, a demoted one no longer does', async () => {
    const promoted = await createUser(t.http);
    const target = await createUser(t.http);
    // The promoted user's account is now cached as a plain user.
    expectError(await patchUser(promoted, target.id, { plan: 'pro' }), 403, 'insufficient_permissions');
    await patchUser(admin, promoted.id, { role: 'admin' }).expect(200);
    expect((await patchUser(promoted, target.id, { plan: 'pro' })).status).toBe(200);
    await patchUser(admin, promoted.id, { role: 'user' }).expect(200);
    expectError(await patchUser(promoted, target.id, { plan: 'free' }), 403, 'insufficient_permissions');
  });

  it('refuses a non-admin with 403, also for an unknown user', async () => {
    const caller = await createUser(t.http);
    const target = await createUser(t.http);
    expectError(await patchUser(caller, target.id, { role: 'admin' }), 403, 'insufficient_permissions');
    expectError(await patchUser(caller, caller.id, { role: 'admin' }), 403, 'insufficient_permissions');
    expectError(await patchUser(caller, 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X', { plan: 'pro' }), 403, 'insufficient_permissions');
    const me = await t.http.get('/v2/users/me').set('Authorization', `Bearer ${caller.accessToken}`).expect(200);
    expect(me.body.data.role).toBe('user');
  });

  it.each(['usr_01JD3Q0F6K8W2M4N6P8R0T2V4X', 'key_01JD3Q0F6K8W2M4N6P8R0T2V4X', 'nonsense'])('answers 404 for user %s', async (id) => {
    expectError(await patchUser(admin, id, { plan: 'pro' }), 404, 'resource_not_found');
  });

  it.each([
    [{ role: 'superuser' }, ['role']],
    [{ plan: 'gold' }, ['plan']],
    [{ role: null }, ['role']],
    [{ plan: 3 }, ['plan']],
    [{ role: 'owner', plan: 'platinum' }, ['plan', 'role']],
    [{ plan: 'pro', email: 'x@example.com' }, ['email']],
    [{ plan: 'pro', id: 'usr_x' }, ['id']],
  ])('answers 400 validation_error for %j', async (body, fields) => {
    const target = await createUser(t.http);
    const res = await patchUser(admin, target.id, body);
    expectError(res, 400, 'validation_error');
    expect([...new Set(res.body.error.details.map((problem: { field: string }) => problem.field))].sort()).toEqual(fields);
  });

  it('leaves PATCH /users/me to the profile update', async () => {
    const res = await patchUser(admin, 'me', { profile: { first_name: 'Admin' } });
    expect(res.status).toBe(200);
    expect(res.body.data.profile.first_name).toBe('Admin');
  });

  it('needs a credential', async () => {
    expectError(await t.http.patch(`/v2/users/${admin.id}`).send({ plan: 'pro' }), 401, 'authentication_required');
  });
});
