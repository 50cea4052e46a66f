import { randomBytes } from 'node:crypto';
import { connectTierApi, createUser, errorFields, errorMessagesFor, expectError, ApiUnderTest, TestUser } from './support';
import { bearer, eventsOf } from './resources.fixtures';

/**
 * Moving a resource between organizations with PATCH `organization_id` (docs/api.md#resource-access): taking it
 * out of its organization needs what hard-deleting it there needs (its owner, or an owner or
 * admin there), and the target needs what creating there needs. Otherwise a member could move
 * someone else's resource to an organization it owns and hard-delete it there, or take it from
 * everyone with null.
 */
describe('resources: moving between organizations', () => {
  let t: ApiUnderTest;
  /** Owner, admin and member of organization A, and the member who creates the resources there. */
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let author: TestUser;
  let organizationA: string;
  /** Organizations owned by the member (the attacker's), the admin and the author. */
  let memberOrganization: string;
  let adminOrganization: string;
  let authorOrganization: string;

  async function organizationOf(user: TestUser): Promise<string> {
    const res = await t.http
      .post('/v2/organizations')
      .set(bearer(user))
      .send({ name: 'Move', slug: `move-${randomBytes(6).toString('hex')}` })
      .expect(201);
    return res.body.data.id;
  }

  /** A resource of the author's in organization A. */
  async function authorsResource(): Promise<string> {
    const res = await t.http.post('/v2/resources').set(bearer(author)).send({ name: 'moved', organization_id: organizationA }).expect(201);
    return res.body.data.id;
  }

  /** The organization and version stored, read past the API so that nothing hides a change. */
  async function stored(id: string): Promise<{ organization_id: string | null; version: number }> {
    const [row] = await t.db.query('SELECT organization_id, version FROM resources WHERE id = $1', [id]);
    return row;
  }

  function move(id: string, user: TestUser, organizationId: string | null) {
    return t.http.patch(`/v2/resources/${id}`).set(bearer(user)).send({ organization_id: organizationId });
  }

  /** The answer is the move refusal, and the resource is still in A, unchanged, with no event but its creation. */
  async function expectMoveRefused(res: Parameters<typeof expectError>[0], id: string): Promise<void> {
    expectError(res, 403, 'insufficient_permissions', /owner or admin of its organization may move it out/);
    expect(errorFields(res)).toEqual(['organization_id']);
    expect(errorMessagesFor(res, 'organization_id')).toMatch(/hard-deleting/);
    expect(await stored(id)).toEqual({ organization_id: organizationA, version: 1 });
    expect((await eventsOf(t, id)).map((event) => event.type)).toEqual(['resource.created']);
  }

  beforeAll(async () => {
    t = await connectTierApi();
    [owner, admin, member, author] = await Promise.all([1, 2, 3, 4].map(() => createUser(t.http, { db: t.db, plan: 'enterprise' })));
    organizationA = await organizationOf(owner);
    for (const [user, role] of [[admin, 'admin'], [member, 'member'], [author, 'member']] as const) {
      await t.http.post(`/v2/organizations/${organizationA}/members`).set(bearer(owner)).send({ user_id: user.id, role }).expect(201);
    }
    [memberOrganization, adminOrganization, authorOrganization] = await Promise.all([member, admin, author].map(organizationOf));
  });
  afterAll(() => t.close());

  it("refuses a member moving another user's resource to an organization it owns, where it could hard-delete it", async () => {
    const id = await authorsResource();
    await expectMoveRefused(await move(id, member, memberOrganization), id);
    // The member sees the resource in A and still may not hard-delete it there.
    const read = await t.http.get(`/v2/resources/${id}`).set(bearer(member)).expect(200);
    expect(read.body.data.organization_id).toBe(organizationA);
    expectError(await t.http.delete(`/v2/resources/${id}?hard=true`).set(bearer(member)), 403, 'insufficient_permissions');
  });

  it("refuses a member taking another user's resource out of every organization with null", async () => {
    const id = await authorsResource();
    await expectMoveRefused(await move(id, member, null), id);
  });

  it('refuses the move before looking at the target: an unknown organization is not revealed as such', async () => {
    const id = await authorsResource();
    await expectMoveRefused(await move(id, member, 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X'), id);
  });

  it('lets a member name the organization the resource is in: no move, the other fields apply', async () => {
    const id = await authorsResource();
    const res = await t.http.patch(`/v2/resources/${id}`).set(bearer(member)).send({ organization_id: organizationA, name: 'renamed' }).expect(200);
    expect(res.body.data).toMatchObject({ organization_id: organizationA, name: 'renamed' });
    const events = await eventsOf(t, id);
    expect(events[1].previous_data).toEqual({ name: 'moved' });
  });

  it("lets an admin of the organization move another user's resource to one it owns", async () => {
    const id = await authorsResource();
    const res = await move(id, admin, adminOrganization).expect(200);
    expect(res.body.data).toMatchObject({ id, organization_id: adminOrganization, owner_id: author.id });
    expect(res.headers.etag).toBe('"2"');
    expect(await stored(id)).toEqual({ organization_id: adminOrganization, version: 2 });
    const events = await eventsOf(t, id);
    expect(events.map((event) => event.type)).toEqual(['resource.created', 'resource.updated']);
    expect(events[1].previous_data).toEqual({ organization_id: organizationA });
  });

  it("lets an owner of the organization take another user's resource out of every organization", async () => {
    const id = await authorsResource();
    const res = await move(id, owner, null).expect(200);
    expect(res.body.data).toMatchObject({ id, organization_id: null, owner_id: author.id });
    expect(await stored(id)).toEqual({ organization_id: null, version: 2 });
  });

  it("lets the resource's owner, a plain member of its organization, move it to one it owns and out of any", async () => {
    const id = await authorsResource();
    expect((await move(id, author, authorOrganization).expect(200)).body.data.organization_id).toBe(authorOrganization);
    expect((await move(id, author, null).expect(200)).body.data.organization_id).toBeNull();
    expect(await stored(id)).toEqual({ organization_id: null, version: 3 });
  });

  it('still needs the rights a create needs where the resource goes, for those who may move it out', async () => {
    const id = await authorsResource();
    // The admin of A is not a member of the member's organization: it is not shown to exist.
    const res = await move(id, admin, memberOrganization);
    expectError(res, 404, 'resource_not_found');
    expect(errorFields(res)).toEqual(['organization_id']);
    expect(await stored(id)).toEqual({ organization_id: organizationA, version: 1 });
  });

  it('refuses a move with 403 whatever If-Match says; for those who may move, If-Match decides', async () => {
    const id = await authorsResource();
    const stale = await t.http.patch(`/v2/resources/${id}`).set(bearer(member)).set('If-Match', '"7"').send({ organization_id: null });
    await expectMoveRefused(stale, id);
    const current = await t.http.patch(`/v2/resources/${id}`).set(bearer(member)).set('If-Match', '"1"').send({ organization_id: null });
    await expectMoveRefused(current, id);

    expectError(
      await t.http.patch(`/v2/resources/${id}`).set(bearer(admin)).set('If-Match', '"7"').send({ organization_id: null }),
      412,
      'precondition_failed',
    );
    expect(await stored(id)).toEqual({ organization_id: organizationA, version: 1 });
    const moved = await t.http.patch(`/v2/resources/${id}`).set(bearer(admin)).set('If-Match', '"1"').send({ organization_id: null }).expect(200);
    expect(moved.headers.etag).toBe('"2"');
  });

  it('keeps and replays a refused move under its Idempotency-Key, writing nothing either time', async () => {
    const id = await authorsResource();
    const key = `move-${randomBytes(6).toString('hex')}`;
    const send = () => t.http.patch(`/v2/resources/${id}`).set(bearer(member)).set('Idempotency-Key', key).send({ organization_id: memberOrganization });
    const first = await send();
    await expectMoveRefused(first, id);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await send();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    await expectMoveRefused(again, id);
  });

  it('knows organization_id on neither PUT nor bulk update, so neither moves a resource', async () => {
    const id = await authorsResource();
    const replace = await t.http.put(`/v2/resources/${id}`).set(bearer(member)).send({ name: 'moved', organization_id: memberOrganization });
    expectError(replace, 400, 'validation_error');
    expect(errorFields(replace)).toEqual(['organization_id']);
    const bulk = await t.http
      .patch('/v2/resources/bulk')
      .set(bearer(member))
      .send({ ids: [id], updates: { organization_id: memberOrganization } });
    expectError(bulk, 400, 'validation_error');
    expect(errorFields(bulk)).toEqual(['updates.organization_id']);
    expect(await stored(id)).toEqual({ organization_id: organizationA, version: 1 });
  });
});
