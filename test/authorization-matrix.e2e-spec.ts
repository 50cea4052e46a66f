import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { connectTierApi, createUser, ApiUnderTest, TestUser } from './support';
import { Actor, ACTORS, Fixture, KEY_WITH_SCOPE, KEY_WITHOUT_SCOPE, MATRIX, renderAuthorizationDoc } from './authorization-matrix';

/**
 * Every endpoint of resources, bulk, organizations, members and users, for every kind of
 * caller (docs/api.md#resource-access, docs/api.md#users, docs/api.md#organizations, docs/api.md#scopes): the status of each cell of test/authorization-matrix.ts.
 * Each test builds a fresh organization and resource, so writes cannot affect other cells.
 */
describe('Authorization matrix', () => {
  let t: ApiUnderTest;
  let users: Record<'owner' | 'admin' | 'member' | 'viewer' | 'other_owner' | 'no_organization' | 'platform_admin', TestUser>;
  let keys: { key_with_scope: string; key_without_scope: string };
  let ownOrganizations: Record<Actor, string>;

  const bearer = (user: TestUser) => ({ Authorization: `Bearer ${user.accessToken}` });

  function credential(actor: Actor): Record<string, string> {
    if (actor === 'key_with_scope' || actor === 'key_without_scope') return { 'X-API-Key': keys[actor] };
    return bearer(users[actor]);
  }

  async function apiKey(scopes: string[]): Promise<string> {
    const res = await t.http.post('/v2/api-keys').set(bearer(users.member)).send({ name: 'matrix', scopes }).expect(201);
    return res.body.data.key;
  }

  async function organizationOf(user: TestUser, name: string): Promise<string> {
    const org = await t.http
      .post('/v2/organizations')
      .set(bearer(user))
      .send({ name, slug: `m-${randomBytes(6).toString('hex')}` })
      .expect(201);
    return org.body.data.id;
  }

  async function fixture(actor: Actor): Promise<Fixture> {
    const organizationId = await organizationOf(users.owner, 'Matrix');
    for (const role of ['admin', 'member', 'viewer'] as const) {
      await t.http
        .post(`/v2/organizations/${organizationId}/members`)
        .set(bearer(users.owner))
        .send({ user_id: users[role].id, role })
        .expect(201);
    }
    const outsider = await createUser(t.http);
    return { organizationId, resourceId: '', outsiderId: outsider.id, memberId: users.member.id, ownOrganizationId: ownOrganizations[actor] };
  }

  async function withResource(f: Fixture): Promise<Fixture> {
    const res = await t.http
      .post('/v2/resources')
      .set(bearer(users.owner))
      .send({ name: 'matrix', organization_id: f.organizationId })
      .expect(201);
    return { ...f, resourceId: res.body.data.id };
  }

  beforeAll(async () => {
    t = await connectTierApi();
    const make = (role?: 'admin') => createUser(t.http, { db: t.db, plan: 'enterprise', ...(role ? { role } : {}) });
    const [owner, admin, member, viewer, otherOwner, noOrganization, platformAdmin] = await Promise.all([
      make(),
      make(),
      make(),
      make(),
      make(),
      make(),
      make('admin'),
    ]);
    users = { owner, admin, member, viewer, other_owner: otherOwner, no_organization: noOrganization, platform_admin: platformAdmin };
    const otherOrganization = await organizationOf(otherOwner, 'Other');
    const [ofOwner, ofAdmin, ofMember, ofViewer, ofPlatformAdmin] = await Promise.all(
      [owner, admin, member, viewer, platformAdmin].map((user) => organizationOf(user, 'Own')),
    );
    ownOrganizations = {
      owner: ofOwner,
      admin: ofAdmin,
      member: ofMember,
      viewer: ofViewer,
      other_owner: otherOrganization,
      // Owning one would put this caller in an organization; the other owner's is one it cannot write in.
      no_organization: otherOrganization,
      platform_admin: ofPlatformAdmin,
      key_with_scope: ofMember,
      key_without_scope: ofMember,
    };
    keys = { key_with_scope: await apiKey(KEY_WITH_SCOPE), key_without_scope: await apiKey(KEY_WITHOUT_SCOPE) };
  });

  afterAll(() => t.close());

  const cells = MATRIX.flatMap((row) => ACTORS.map((actor) => ({ row, actor, status: row.expected[actor] })));

  it.each(cells.map((cell) => [`${cell.row.method} ${cell.row.path}${cell.row.note ? ` (${cell.row.note})` : ''}`, cell.actor, cell.status, cell] as const))(
    '%s as %s: %i',
    async (_name, actor, status, { row }) => {
      const base = await fixture(actor);
      // Deleting an organization needs one without resources; every other row has one.
      const f = row.method === 'DELETE' && row.path === '/organizations/{id}' ? base : await withResource(base);
      const method = row.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      let request = t.http[method](row.url(f)).set(credential(actor));
      if (row.body) request = request.send(row.body(f));
      const res = await request;
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({
        status,
        code: status === 403 ? 'insufficient_permissions' : status === 404 ? 'resource_not_found' : undefined,
      });
    },
  );

  it('docs/authorization.md is what the table renders (npm run docs:authorization)', () => {
    expect(readFileSync(resolve(__dirname, '../docs/authorization.md'), 'utf8')).toBe(renderAuthorizationDoc());
  });
});
