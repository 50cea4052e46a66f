import { randomBytes } from 'node:crypto';
import { connectTierApi, createUser, errorFields, expectError, ApiUnderTest, TestUser } from './support';

/**
 * What organization membership shows and allows (docs/api.md#resource-access, docs/api.md#users, docs/api.md#organizations): members see the
 * organization's resources, owner/admin/member write them, a viewer only reads, others get 404;
 * GET /users shows the users who share an organization with the caller.
 */
describe('Organization visibility', () => {
  let t: ApiUnderTest;
  let owner: TestUser;
  let member: TestUser;
  let viewer: TestUser;
  let stranger: TestUser;
  let orgId: string;
  let resourceId: string;

  const as = (user: TestUser) => ({ Authorization: `Bearer ${user.accessToken}` });

  beforeAll(async () => {
    t = await connectTierApi();
    [owner, member, viewer, stranger] = await Promise.all(
      [1, 2, 3, 4].map(() => createUser(t.http, { db: t.db, plan: 'enterprise' })),
    );
    const org = await t.http
      .post('/v2/organizations')
      .set(as(owner))
      .send({ name: 'Vis', slug: `vis-${randomBytes(5).toString('hex')}` })
      .expect(201);
    orgId = org.body.data.id;
    for (const [user, role] of [[member, 'member'], [viewer, 'viewer']] as const) {
      await t.http.post(`/v2/organizations/${orgId}/members`).set(as(owner)).send({ user_id: user.id, role }).expect(201);
    }
    const created = await t.http.post('/v2/resources').set(as(member)).send({ name: 'shared', organization_id: orgId }).expect(201);
    resourceId = created.body.data.id;
    expect(created.body.data).toMatchObject({ owner_id: member.id, organization_id: orgId });
  });

  afterAll(() => t.close());

  it('shows the resource to every member and hides it from others', async () => {
    for (const user of [owner, member, viewer]) {
      await t.http.get(`/v2/resources/${resourceId}`).set(as(user)).expect(200);
      const list = await t.http.get('/v2/resources').query({ 'filter[organization_id]': orgId }).set(as(user)).expect(200);
      expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([resourceId]);
    }
    expectError(await t.http.get(`/v2/resources/${resourceId}`).set(as(stranger)), 404, 'resource_not_found');
    const list = await t.http.get('/v2/resources').query({ 'filter[organization_id]': orgId }).set(as(stranger)).expect(200);
    expect(list.body.data).toEqual([]);
  });

  it('lets owners and members write, refuses a viewer with 403 and a stranger with 404', async () => {
    await t.http.patch(`/v2/resources/${resourceId}`).set(as(owner)).send({ name: 'by owner' }).expect(200);
    expectError(await t.http.patch(`/v2/resources/${resourceId}`).set(as(viewer)).send({ name: 'no' }), 403, 'insufficient_permissions');
    expectError(await t.http.patch(`/v2/resources/${resourceId}`).set(as(stranger)).send({ name: 'no' }), 404, 'resource_not_found');
    const bulk = await t.http.patch('/v2/resources/bulk').set(as(viewer)).send({ ids: [resourceId], updates: { status: 'archived' } });
    expectError(bulk, 403, 'insufficient_permissions');
    expect(errorFields(bulk)).toEqual(['ids[0]']);
  });

  it('creates in an organization only as owner, admin or member', async () => {
    const byViewer = await t.http.post('/v2/resources').set(as(viewer)).send({ name: 'x', organization_id: orgId });
    expectError(byViewer, 403, 'insufficient_permissions');
    expect(errorFields(byViewer)).toEqual(['organization_id']);
    const byStranger = await t.http.post('/v2/resources').set(as(stranger)).send({ name: 'x', organization_id: orgId });
    expectError(byStranger, 404, 'resource_not_found');
  });

  it('hard-deletes only for the resource owner or an organization owner or admin', async () => {
    const res = await t.http.post('/v2/resources').set(as(owner)).send({ name: 'doomed', organization_id: orgId }).expect(201);
    const id = res.body.data.id;
    expectError(await t.http.delete(`/v2/resources/${id}?hard=true`).set(as(member)), 403, 'insufficient_permissions');
    await t.http.delete(`/v2/resources/${id}`).set(as(member)).expect(204);
    await t.http.delete(`/v2/resources/${id}?hard=true`).set(as(owner)).expect(204);
  });

  it('lists the users who share an organization with the caller', async () => {
    const res = await t.http.get('/v2/users').query({ per_page: 100 }).set(as(viewer)).expect(200);
    expect(res.body.data.map((u: { id: string }) => u.id).sort()).toEqual([owner.id, member.id, viewer.id].sort());
    const alone = await t.http.get('/v2/users').set(as(stranger)).expect(200);
    expect(alone.body.data.map((u: { id: string }) => u.id)).toEqual([stranger.id]);
  });

  it('moves a resource with PATCH organization_id when the caller may take it out of one organization and create in the other', async () => {
    const second = await t.http
      .post('/v2/organizations')
      .set(as(owner))
      .send({ name: 'Second', slug: `vis2-${randomBytes(5).toString('hex')}` })
      .expect(201);
    const target: string = second.body.data.id;
    await t.http.post(`/v2/organizations/${target}/members`).set(as(owner)).send({ user_id: member.id, role: 'viewer' }).expect(201);
    // The member's own resource: it may take it out of orgId, so the target alone decides.
    const res = await t.http.post('/v2/resources').set(as(member)).send({ name: 'mover', organization_id: orgId }).expect(201);
    const id = res.body.data.id;
    const asViewerThere = await t.http.patch(`/v2/resources/${id}`).set(as(member)).send({ organization_id: target });
    expectError(asViewerThere, 403, 'insufficient_permissions', /viewer cannot create/);
    expect(errorFields(asViewerThere)).toEqual(['organization_id']);
    expectError(await t.http.patch(`/v2/resources/${id}`).set(as(viewer)).send({ organization_id: target }), 403, 'insufficient_permissions');
    expectError(await t.http.patch(`/v2/resources/${id}`).set(as(stranger)).send({ organization_id: target }), 404, 'resource_not_found');
    const unknown = await t.http.patch(`/v2/resources/${id}`).set(as(owner)).send({ organization_id: 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X' });
    expectError(unknown, 404, 'resource_not_found');
    const moved = await t.http.patch(`/v2/resources/${id}`).set(as(owner)).send({ organization_id: target }).expect(200);
    expect(moved.body.data).toMatchObject({ id, organization_id: target });
    expect(moved.headers.etag).toBe('"2"');
    await t.http.get(`/v2/resources/${id}`).set(as(member)).expect(200);
    expectError(await t.http.get(`/v2/resources/${id}`).set(as(viewer)), 404, 'resource_not_found');
    const out = await t.http.patch(`/v2/resources/${id}`).set(as(owner)).send({ organization_id: null }).expect(200);
    expect(out.body.data.organization_id).toBeNull();
    // Out of every organization, it is its owner's alone.
    expectError(await t.http.get(`/v2/resources/${id}`).set(as(owner)), 404, 'resource_not_found');
    await t.http.delete(`/v2/resources/${id}?hard=true`).set(as(member)).expect(204);
  });

  it("refuses a member moving another's resource out of the organization, as it refuses the hard delete", async () => {
    const res = await t.http.post('/v2/resources').set(as(owner)).send({ name: 'kept', organization_id: orgId }).expect(201);
    const id = res.body.data.id;
    for (const organizationId of [null, 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X']) {
      const refused = await t.http.patch(`/v2/resources/${id}`).set(as(member)).send({ organization_id: organizationId });
      expectError(refused, 403, 'insufficient_permissions', /may move it out/);
      expect(errorFields(refused)).toEqual(['organization_id']);
    }
    const read = await t.http.get(`/v2/resources/${id}`).set(as(member)).expect(200);
    expect(read.body.data.organization_id).toBe(orgId);
    expect(read.headers.etag).toBe('"1"');
  });

  it('refuses to delete the organization while it owns resources', async () => {
    expectError(await t.http.delete(`/v2/organizations/${orgId}`).set(as(owner)), 409, 'conflict');
  });
});
