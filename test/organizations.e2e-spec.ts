import { randomBytes } from 'node:crypto';
import { connectTierApi, createUser, errorFields, expectError, ApiUnderTest, TestUser } from './support';

/** Organizations and members (docs/api.md#organizations): records, slug rules, roles, conflicts. */
describe('Organizations', () => {
  let t: ApiUnderTest;
  let owner: TestUser;
  let orgAdmin: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  let platformAdmin: TestUser;

  const as = (user: TestUser) => ({ Authorization: `Bearer ${user.accessToken}` });
  const slug = (): string => `org-${randomBytes(5).toString('hex')}`;

  async function createOrganization(user: TestUser, name = 'Acme'): Promise<{ id: string; slug: string }> {
    const res = await t.http.post('/v2/organizations').set(as(user)).send({ name, slug: slug() }).expect(201);
    return res.body.data;
  }

  async function addMember(orgId: string, by: TestUser, userId: string, role: string) {
    return t.http.post(`/v2/organizations/${orgId}/members`).set(as(by)).send({ user_id: userId, role });
  }

  beforeAll(async () => {
    t = await connectTierApi();
    [owner, orgAdmin, viewer, outsider] = await Promise.all([1, 2, 3, 4].map(() => createUser(t.http, { db: t.db, plan: 'enterprise' })));
    platformAdmin = await createUser(t.http, { db: t.db, role: 'admin', plan: 'enterprise' });
  });

  afterAll(() => t.close());

  describe('create, read, list', () => {
    it('creates an organization (201) whose creator is its owner', async () => {
      const wanted = slug();
      const res = await t.http.post('/v2/organizations').set(as(owner)).send({ name: '  Acme Inc  ', slug: wanted }).expect(201);
      expect(res.body.data).toEqual({
        id: expect.stringMatching(/^org_[0-9A-Z]{26}$/),
        name: 'Acme Inc',
        slug: wanted,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const members = await t.http.get(`/v2/organizations/${res.body.data.id}/members`).set(as(owner)).expect(200);
      expect(members.body.data).toEqual([
        {
          user_id: owner.id,
          role: 'owner',
          created_at: expect.any(String),
          user: { id: owner.id, username: owner.username, email: owner.email },
        },
      ]);
      expect(members.body.meta).toMatchObject({ page: 1, per_page: 20, total: 1, total_pages: 1 });
      const got = await t.http.get(`/v2/organizations/${res.body.data.id}`).set(as(owner)).expect(200);
      expect(got.body.data).toEqual(res.body.data);
    });

    it('lists only the organizations the caller belongs to, paginated with links; admins see all', async () => {
      const mine = await createOrganization(viewer);
      const theirs = await createOrganization(outsider);
      const res = await t.http.get('/v2/organizations').query({ per_page: 1 }).set(as(viewer)).expect(200);
      expect(res.body.data.map((o: { id: string }) => o.id)).toEqual([mine.id]);
      expect(res.body.meta).toEqual({
        page: 1,
        per_page: 1,
        total: 1,
        total_pages: 1,
        links: {
          first: '/v2/organizations?page=1&per_page=1',
          prev: null,
          next: null,
          last: '/v2/organizations?page=1&per_page=1',
        },
      });
      // Other suites create organizations in the same database: the admin's list is checked by
      // its total and by reaching the organizations of two different users.
      const all = await t.http.get('/v2/organizations').query({ per_page: 1 }).set(as(platformAdmin)).expect(200);
      expect(all.body.meta.total).toBeGreaterThanOrEqual(2);
      for (const org of [mine, theirs]) await t.http.get(`/v2/organizations/${org.id}`).set(as(platformAdmin)).expect(200);
    });

    it.each([
      ['too short', 'a'],
      ['too long', 'a'.repeat(51)],
      ['capitals', 'Acme'],
      ['underscore', 'ac_me'],
      ['space', 'ac me'],
    ])('refuses a slug that is %s', async (_label, bad) => {
      const res = await t.http.post('/v2/organizations').set(as(owner)).send({ name: 'x', slug: bad });
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['slug']);
    });

    it('accepts slugs of 2 and 50 characters', async () => {
      const base = randomBytes(3).toString('hex');
      await t.http.post('/v2/organizations').set(as(owner)).send({ name: 'x', slug: `${base}-${'9'.repeat(43)}` }).expect(201);
      const two = await t.http.post('/v2/organizations').set(as(owner)).send({ name: 'x', slug: base.slice(0, 2) });
      expect([201, 409]).toContain(two.status);
    });

    it('refuses a missing or too long name, and unknown fields', async () => {
      for (const body of [{ slug: slug() }, { name: '   ', slug: slug() }, { name: 'n'.repeat(101), slug: slug() }]) {
        const res = await t.http.post('/v2/organizations').set(as(owner)).send(body);
        expectError(res, 400, 'validation_error');
        expect(errorFields(res)).toEqual(['name']);
      }
      const extra = await t.http.post('/v2/organizations').set(as(owner)).send({ name: 'x', slug: slug(), plan: 'pro' });
      expectError(extra, 400, 'validation_error');
    });

    it('refuses a slug taken in another letter case (409)', async () => {
      const org = await createOrganization(owner);
      const res = await t.http.post('/v2/organizations').set(as(outsider)).send({ name: 'x', slug: org.slug });
      expectError(res, 409, 'conflict');
      expect(errorFields(res)).toEqual(['slug']);
      await t.db.query(`UPDATE organizations SET slug = upper(slug) WHERE id = $1`, [org.id]);
      expectError(await t.http.post('/v2/organizations').set(as(outsider)).send({ name: 'x', slug: org.slug }), 409, 'conflict');
      await t.db.query(`UPDATE organizations SET slug = lower(slug) WHERE id = $1`, [org.id]);
    });

    it('answers 404 for a non-member, an unknown id and a malformed id', async () => {
      const org = await createOrganization(owner);
      for (const path of [`/v2/organizations/${org.id}`, `/v2/organizations/${org.id}/members`]) {
        expectError(await t.http.get(path).set(as(outsider)), 404, 'resource_not_found');
      }
      expectError(await t.http.patch(`/v2/organizations/${org.id}`).set(as(outsider)).send({ name: 'y' }), 404, 'resource_not_found');
      expectError(await t.http.delete(`/v2/organizations/${org.id}`).set(as(outsider)), 404, 'resource_not_found');
      expectError(await addMember(org.id, outsider, outsider.id, 'owner'), 404, 'resource_not_found');
      for (const id of ['org_01JD3Q0F6K8W2M4N6P8R0T2V4X', 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X', 'nope']) {
        expectError(await t.http.get(`/v2/organizations/${id}`).set(as(owner)), 404, 'resource_not_found');
      }
    });
  });

  describe('update and delete', () => {
    it('owners and admins rename; members and viewers get 403; a taken slug is 409', async () => {
      const org = await createOrganization(owner);
      const other = await createOrganization(owner);
      await addMember(org.id, owner, orgAdmin.id, 'admin').then((r) => expect(r.status).toBe(201));
      await addMember(org.id, owner, viewer.id, 'viewer').then((r) => expect(r.status).toBe(201));
      const renamed = await t.http.patch(`/v2/organizations/${org.id}`).set(as(orgAdmin)).send({ name: 'Renamed' }).expect(200);
      expect(renamed.body.data).toMatchObject({ id: org.id, name: 'Renamed', slug: org.slug });
      expectError(await t.http.patch(`/v2/organizations/${org.id}`).set(as(viewer)).send({ name: 'No' }), 403, 'insufficient_permissions');
      const taken = await t.http.patch(`/v2/organizations/${org.id}`).set(as(owner)).send({ slug: other.slug });
      expectError(taken, 409, 'conflict');
      const bad = await t.http.patch(`/v2/organizations/${org.id}`).set(as(owner)).send({ slug: 'B' });
      expectError(bad, 400, 'validation_error');
      expect(errorFields(bad)).toEqual(['slug']);
      const same = await t.http.patch(`/v2/organizations/${org.id}`).set(as(owner)).send({ slug: org.slug }).expect(200);
      expect(same.body.data.slug).toBe(org.slug);
    });

    it('only an owner deletes; an organization that owns resources is 409', async () => {
      const org = await createOrganization(owner);
      await addMember(org.id, owner, orgAdmin.id, 'admin');
      expectError(await t.http.delete(`/v2/organizations/${org.id}`).set(as(orgAdmin)), 403, 'insufficient_permissions');
      const db = t.db;
      await db.query(
        `INSERT INTO resources (id, owner_id, organization_id, name, deleted_at) VALUES ($1, $2, $3, 'r', now())`,
        [`res_${randomBytes(13).toString('hex').slice(0, 26).toUpperCase()}`, owner.id, org.id],
      );
      const res = await t.http.delete(`/v2/organizations/${org.id}`).set(as(owner));
      expectError(res, 409, 'conflict', /still owns resources/);
      await db.query(`DELETE FROM resources WHERE organization_id = $1`, [org.id]);
      await t.http.delete(`/v2/organizations/${org.id}`).set(as(owner)).expect(204);
      expectError(await t.http.get(`/v2/organizations/${org.id}`).set(as(owner)), 404, 'resource_not_found');
    });
  });

  describe('members', () => {
    it('refuses unknown users, unknown roles, malformed ids and a member added twice', async () => {
      const org = await createOrganization(owner);
      const unknown = await addMember(org.id, owner, 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X', 'member');
      expectError(unknown, 404, 'resource_not_found');
      expect(errorFields(unknown)).toEqual(['user_id']);
      expectError(await addMember(org.id, owner, 'bogus', 'member'), 404, 'resource_not_found');
      const role = await addMember(org.id, owner, viewer.id, 'superuser');
      expectError(role, 400, 'validation_error');
      expect(errorFields(role)).toEqual(['role']);
      const missing = await t.http.post(`/v2/organizations/${org.id}/members`).set(as(owner)).send({});
      expect(errorFields(missing).sort()).toEqual(['role', 'user_id']);
      expect((await addMember(org.id, owner, viewer.id, 'viewer')).status).toBe(201);
      const twice = await addMember(org.id, owner, viewer.id, 'member');
      expectError(twice, 409, 'conflict');
    });

    it('only an owner adds or removes an owner; admins manage the others; viewers nothing', async () => {
      const org = await createOrganization(owner);
      await addMember(org.id, owner, orgAdmin.id, 'admin');
      const added = await addMember(org.id, orgAdmin, viewer.id, 'viewer');
      expect(added.status).toBe(201);
      expect(added.body.data).toEqual({
        user_id: viewer.id,
        role: 'viewer',
        created_at: expect.any(String),
        user: { id: viewer.id, username: viewer.username, email: viewer.email },
      });
      expectError(await addMember(org.id, orgAdmin, outsider.id, 'owner'), 403, 'insufficient_permissions', /owner/);
      expectError(await addMember(org.id, viewer, outsider.id, 'member'), 403, 'insufficient_permissions');
      const removeOwner = await t.http.delete(`/v2/organizations/${org.id}/members/${owner.id}`).set(as(orgAdmin));
      expectError(removeOwner, 403, 'insufficient_permissions');
      expectError(await t.http.delete(`/v2/organizations/${org.id}/members/${orgAdmin.id}`).set(as(viewer)), 403, 'insufficient_permissions');
      expectError(await t.http.delete(`/v2/organizations/${org.id}/members/${outsider.id}`).set(as(owner)), 404, 'resource_not_found');
      await t.http.delete(`/v2/organizations/${org.id}/members/${viewer.id}`).set(as(orgAdmin)).expect(204);
    });

    it('keeps the last owner (409) and lets members leave', async () => {
      const org = await createOrganization(owner);
      await addMember(org.id, owner, viewer.id, 'viewer');
      await t.http.delete(`/v2/organizations/${org.id}/members/${viewer.id}`).set(as(viewer)).expect(204);
      const last = await t.http.delete(`/v2/organizations/${org.id}/members/${owner.id}`).set(as(owner));
      expectError(last, 409, 'conflict', /last owner/);
      await addMember(org.id, owner, orgAdmin.id, 'owner').then((r) => expect(r.status).toBe(201));
      await t.http.delete(`/v2/organizations/${org.id}/members/${owner.id}`).set(as(owner)).expect(204);
      expectError(await t.http.get(`/v2/organizations/${org.id}`).set(as(owner)), 404, 'resource_not_found');
    });
  });

  it('works over a real socket with Node fetch', async () => {
    const base = `${t.url}/v2`;
    const wanted = slug();
    const created = await fetch(`${base}/organizations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.accessToken}` },
      body: JSON.stringify({ name: 'Fetched', slug: wanted }),
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { data: { id: string; slug: string } };
    expect(body.data.slug).toBe(wanted);
    const hidden = await fetch(`${base}/organizations/${body.data.id}`, { headers: { authorization: `Bearer ${outsider.accessToken}` } });
    expect(hidden.status).toBe(404);
    expect(((await hidden.json()) as { error: { code: string } }).error.code).toBe('resource_not_found');
  });
});
