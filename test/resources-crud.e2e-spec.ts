import { connectTierApi, createUser, ApiUnderTest, TestUser } from './support';
import { bearer, eventsOf, fieldsOf, ResourceJson } from './resources.fixtures';

/** Single-resource endpoints: docs/api.md#resources (fields, limits, ownership) and docs/api.md#events. */
describe('resources: create, read, replace, update, delete', () => {
  let t: ApiUnderTest;
  let owner: TestUser;
  let stranger: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    t = await connectTierApi();
    owner = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    stranger = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    admin = await createUser(t.http, { db: t.db, plan: 'enterprise', role: 'admin' });
  });
  afterAll(async () => {
    await t.close();
  });

  async function create(body: Record<string, unknown> = { name: 'Primary database' }, user = owner): Promise<ResourceJson> {
    const res = await t.http.post('/v2/resources').set(bearer(user)).send(body).expect(201);
    return res.body.data;
  }

  describe('POST /resources', () => {
    it('creates an active resource in the single form with defaults, an ETag and a resource.created event', async () => {
      const res = await t.http.post('/v2/resources').set(bearer(owner)).send({ name: '  Primary database  ' });
      expect(res.status).toBe(201);
      expect(res.headers.etag).toBe('"1"');
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(
        ['created_at', 'deleted_at', 'description', 'id', 'metadata', 'name', 'organization_id', 'owner_id', 'status', 'tags', 'type', 'updated_at'],
      );
      expect(data).toMatchObject({
        name: 'Primary database',
        description: null,
        type: 'standard',
        status: 'active',
        metadata: {},
        tags: [],
        owner_id: owner.id,
        organization_id: null,
        deleted_at: null,
      });
      expect(data.id).toMatch(/^res_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(data.updated_at).toBe(data.created_at);

      const events = await eventsOf(t, data.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'resource.created', previous_data: null, owner_id: owner.id, organization_id: null });
      expect(events[0].data.object).toEqual(data);
    });

    it('keeps every writable field', async () => {
      const body = {
        name: 'Cache',
        description: 'Session cache',
        type: 'premium',
        metadata: { region: 'eu-west-1', replicas: 3, public: false, note: null },
        tags: ['production', 'cache'],
      };
      const data = await create(body);
      expect(data).toMatchObject(body);
      const read = await t.http.get(`/v2/resources/${data.id}`).set(bearer(owner)).expect(200);
      expect(read.body.data).toEqual(data);
    });

    it('accepts the limits exactly', async () => {
      const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`.padEnd(40, 'x'), 'v'.repeat(500)]));
      const tags = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(50, 't'));
      const data = await create({ name: 'n'.repeat(100), description: 'd'.repeat(500), metadata, tags });
      expect(data.name).toHaveLength(100);
      expect(Object.keys(data.metadata as object)).toHaveLength(50);
      expect(data.tags).toHaveLength(20);
    });

    it.each([
      ['name missing', {}, 'name'],
      ['name empty after trimming', { name: '   ' }, 'name'],
      ['name of 101 characters', { name: 'n'.repeat(101) }, 'name'],
      ['name not a string', { name: 42 }, 'name'],
      ['description of 501 characters', { name: 'x', description: 'd'.repeat(501) }, 'description'],
      ['type unknown', { name: 'x', type: 'gold' }, 'type'],
      ['tags not an array', { name: 'x', tags: 'a' }, 'tags'],
      ['21 tags', { name: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
      ['a tag of 51 characters', { name: 'x', tags: ['t'.repeat(51)] }, 'tags'],
      ['an empty tag', { name: 'x', tags: [''] }, 'tags'],
      ['repeated tags', { name: 'x', tags: ['a', 'a'] }, 'tags'],
      ['metadata an array', { name: 'x', metadata: [1] }, 'metadata'],
      ['metadata of 51 keys', { name: 'x', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 'metadata'],
      ['a metadata key of 41 characters', { name: 'x', metadata: { ['k'.repeat(41)]: 1 } }, 'metadata'],
      ['a metadata string of 501 characters', { name: 'x', metadata: { k: 'v'.repeat(501) } }, 'metadata'],
      ['a nested metadata value', { name: 'x', metadata: { k: { nested: true } } }, 'metadata'],
      ['a metadata array value', { name: 'x', metadata: { k: [1] } }, 'metadata'],
      ['a NUL character', { name: 'a\u0000b' }, 'name'],
      ['an unknown field', { name: 'x', colour: 'red' }, 'colour'],
      ['status on create', { name: 'x', status: 'archived' }, 'status'],
      ['organization_id of the wrong shape', { name: 'x', organization_id: 'acme' }, 'organization_id'],
    ])('refuses %s with validation_error naming the field', async (_case, body, field) => {
      const res = await t.http.post('/v2/resources').set(bearer(owner)).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toContain(field);
    });

    it('says that enterprise is the legacy type name', async () => {
      const res = await t.http.post('/v2/resources').set(bearer(owner)).send({ name: 'x', type: 'enterprise' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details).toEqual([{ field: 'type', message: expect.stringContaining('legacy') }]);
    });

    it.each(['id', 'created_at', 'updated_at', 'deleted_at', 'owner_id', 'version'])('refuses the read-only field %s', async (field) => {
      const res = await t.http.post('/v2/resources').set(bearer(owner)).send({ name: 'x', [field]: 'value' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details).toContainEqual({ field, message: 'is read-only' });
    });

    it('lists every offending field at once', async () => {
      const res = await t.http.post('/v2/resources').set(bearer(owner)).send({ name: '', type: 'gold', tags: 'x', extra: 1 });
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body).sort()).toEqual(['extra', 'name', 'tags', 'type']);
    });

    it('answers 404 for an organization that does not exist, writing nothing', async () => {
      const before = await countResources(owner.id);
      const res = await t.http
        .post('/v2/resources')
        .set(bearer(owner))
        .send({ name: 'x', organization_id: 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
      expect(res.body.error.message).toContain('org_01JD3Q0F6K8W2M4N6P8R0T2V4X');
      expect(await countResources(owner.id)).toBe(before);
    });

    it('needs a credential', async () => {
      const res = await t.http.post('/v2/resources').send({ name: 'x' });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('authentication_required');
    });
  });

  describe('GET /resources/{id}', () => {
    it('returns the single form with a strong ETag', async () => {
      const created = await create({ name: 'Read me', tags: ['a'] });
      const res = await t.http.get(`/v2/resources/${created.id}`).set(bearer(owner));
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"1"');
      expect(res.body).toEqual({ data: created });
    });

    it('returns only id and the requested fields', async () => {
      const created = await create({ name: 'Sparse', description: 'hidden' });
      const res = await t.http.get(`/v2/resources/${created.id}?fields=name,status`).set(bearer(owner)).expect(200);
      expect(res.body.data).toEqual({ id: created.id, name: 'Sparse', status: 'active' });
    });

    it.each([
      ['an unknown field', 'fields=name,colour', 'fields'],
      ['an empty fields list', 'fields=', 'fields'],
      ['an unknown query parameter', 'expand=owner', 'expand'],
    ])('refuses %s', async (_case, query, field) => {
      const created = await create();
      const res = await t.http.get(`/v2/resources/${created.id}?${query}`).set(bearer(owner));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toEqual([field]);
    });

    it.each(['res_nope', 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X', 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X', '123', 'res_%00'])(
      'answers 404 for the id %s',
      async (id) => {
        const res = await t.http.get(`/v2/resources/${id}`).set(bearer(owner));
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('resource_not_found');
      },
    );

    it("answers 404 for another user's resource and 200 to a platform admin", async () => {
      const created = await create();
      const res = await t.http.get(`/v2/resources/${created.id}`).set(bearer(stranger));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
      const asAdmin = await t.http.get(`/v2/resources/${created.id}`).set(bearer(admin));
      expect(asAdmin.status).toBe(200);
      expect(asAdmin.body.data.owner_id).toBe(owner.id);
    });
  });

  describe('PUT /resources/{id}', () => {
    it('replaces the content, resets omitted fields, keeps the status and records what changed', async () => {
      const created = await create({ name: 'Before', description: 'old', type: 'premium', tags: ['a'], metadata: { k: 1 } });
      await t.http.patch(`/v2/resources/${created.id}`).set(bearer(owner)).send({ status: 'archived' }).expect(200);
      const res = await t.http.put(`/v2/resources/${created.id}`).set(bearer(owner)).send({ name: 'After' });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"3"');
      expect(res.body.data).toMatchObject({
        id: created.id,
        name: 'After',
        description: null,
        type: 'standard',
        tags: [],
        metadata: {},
        status: 'archived',
        created_at: created.created_at,
      });
      expect(res.body.data.updated_at >= created.updated_at).toBe(true);
      const events = await eventsOf(t, created.id);
      expect(events.map((event) => event.type)).toEqual(['resource.created', 'resource.updated', 'resource.updated']);
      expect(events[2].previous_data).toEqual({ name: 'Before', description: 'old', type: 'premium', tags: ['a'], metadata: { k: 1 } });
      expect(events[2].data.object).toEqual(res.body.data);
    });

    it.each([
      ['without a name', { description: 'x' }, 'name'],
      ['with status', { name: 'x', status: 'active' }, 'status'],
      ['with a read-only field', { name: 'x', id: 'res_x' }, 'id'],
      ['with the legacy type', { name: 'x', type: 'enterprise' }, 'type'],
      ['moving it to an organization', { name: 'x', organization_id: null }, 'organization_id'],
    ])('refuses a body %s', async (_case, body, field) => {
      const created = await create();
      const res = await t.http.put(`/v2/resources/${created.id}`).set(bearer(owner)).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toContain(field);
    });

    it("answers 404 for another user's resource", async () => {
      const created = await create();
      const res = await t.http.put(`/v2/resources/${created.id}`).set(bearer(stranger)).send({ name: 'Mine now' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
    });
  });

  describe('PATCH /resources/{id}', () => {
    it('sets only the given fields and merges metadata (RFC 7396)', async () => {
      const created = await create({ name: 'Patch me', description: 'keep', metadata: { keep: 1, change: 'a', drop: true }, tags: ['x'] });
      const res = await t.http
        .patch(`/v2/resources/${created.id}`)
        .set(bearer(owner))
        .send({ metadata: { change: 'b', drop: null, added: 2.5 }, status: 'archived' });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"2"');
      expect(res.body.data).toMatchObject({
        name: 'Patch me',
        description: 'keep',
        tags: ['x'],
        status: 'archived',
        metadata: { keep: 1, change: 'b', added: 2.5 },
      });
      expect(res.body.data.metadata).not.toHaveProperty('drop');
      const events = await eventsOf(t, created.id);
      expect(events[1]).toMatchObject({
        type: 'resource.updated',
        previous_data: { status: 'active', metadata: { keep: 1, change: 'a', drop: true } },
        owner_id: owner.id,
      });
    });

    it('moves status both ways, clears description with null and metadata with null', async () => {
      const created = await create({ name: 'Both ways', description: 'text', metadata: { a: 1 } });
      await t.http.patch(`/v2/resources/${created.id}`).set(bearer(owner)).send({ status: 'archived' }).expect(200);
      const back = await t.http
        .patch(`/v2/resources/${created.id}`)
        .set(bearer(owner))
        .send({ status: 'active', description: null, metadata: null })
        .expect(200);
      expect(back.body.data).toMatchObject({ status: 'active', description: null, metadata: {} });
    });

    it('changes nothing, and writes no event, when the values are the same', async () => {
      const created = await create({ name: 'Same', tags: ['a'] });
      const res = await t.http.patch(`/v2/resources/${created.id}`).set(bearer(owner)).send({ name: 'Same', tags: ['a'] });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"1"');
      expect(res.body.data).toEqual(created);
      expect(await eventsOf(t, created.id)).toHaveLength(1);
    });

    it('refuses a merge that would leave more than 50 metadata keys', async () => {
      const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
      const created = await create({ name: 'Full', metadata });
      const res = await t.http.patch(`/v2/resources/${created.id}`).set(bearer(owner)).send({ metadata: { one_more: 1 } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toEqual(['metadata']);
    });

    it.each([
      ['name null', { name: null }, 'name'],
      ['name too long', { name: 'n'.repeat(101) }, 'name'],
      ['status unknown', { status: 'deleted' }, 'status'],
      ['type enterprise', { type: 'enterprise' }, 'type'],
      ['tags null', { tags: null }, 'tags'],
      ['an unknown field', { owner: 'me' }, 'owner'],
      ['a read-only field', { created_at: '2020-01-01T00:00:00Z' }, 'created_at'],
      ['organization_id of the wrong shape', { organization_id: 'acme' }, 'organization_id'],
    ])('refuses %s', async (_case, body, field) => {
      const created = await create();
      const res = await t.http.patch(`/v2/resources/${created.id}`).set(bearer(owner)).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toContain(field);
    });

    it("answers 404 for another user's resource and 403 to an admin who is not its owner", async () => {
      const created = await create();
      const asStranger = await t.http.patch(`/v2/resources/${created.id}`).set(bearer(stranger)).send({ name: 'x' });
      expect(asStranger.status).toBe(404);
      expect(asStranger.body.error.code).toBe('resource_not_found');
      const asAdmin = await t.http.patch(`/v2/resources/${created.id}`).set(bearer(admin)).send({ name: 'x' });
      expect(asAdmin.status).toBe(403);
      expect(asAdmin.body.error.code).toBe('insufficient_permissions');
    });

    it('answers 404 for an id of the wrong shape', async () => {
      const res = await t.http.patch('/v2/resources/not-an-id').set(bearer(owner)).send({ name: 'x' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
    });
  });

  describe('DELETE /resources/{id}', () => {
    it('soft deletes: 204, then 404 everywhere and out of lists, with a resource.deleted event', async () => {
      const created = await create({ name: 'Soft delete me' });
      const res = await t.http.delete(`/v2/resources/${created.id}`).set(bearer(owner));
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      for (const request of [
        t.http.get(`/v2/resources/${created.id}`),
        t.http.patch(`/v2/resources/${created.id}`).send({ name: 'x' }),
        t.http.put(`/v2/resources/${created.id}`).send({ name: 'x' }),
        t.http.delete(`/v2/resources/${created.id}`),
      ]) {
        const answer = await request.set(bearer(owner));
        expect(answer.status).toBe(404);
        expect(answer.body.error.code).toBe('resource_not_found');
      }
      const list = await t.http.get('/v2/resources?per_page=100').set(bearer(owner)).expect(200);
      expect(list.body.data.map((item: { id: string }) => item.id)).not.toContain(created.id);

      const rows = await t.db.query('SELECT deleted_at FROM resources WHERE id = $1', [created.id]);
      expect(rows[0].deleted_at).not.toBeNull();
      const events = await eventsOf(t, created.id);
      expect(events.map((event) => event.type)).toEqual(['resource.created', 'resource.deleted']);
      expect(events[1].previous_data).toBeNull();
      expect(events[1].data.object).toMatchObject({ id: created.id, name: 'Soft delete me', deleted_at: expect.any(String) });
    });

    it('hard deletes a live resource, with a resource.deleted event', async () => {
      const created = await create();
      await t.http.delete(`/v2/resources/${created.id}?hard=true`).set(bearer(owner)).expect(204);
      expect(await t.db.query('SELECT id FROM resources WHERE id = $1', [created.id])).toEqual([]);
      const events = await eventsOf(t, created.id);
      expect(events.map((event) => event.type)).toEqual(['resource.created', 'resource.deleted']);
    });

    it('hard deletes a resource that was soft deleted before', async () => {
      const created = await create();
      await t.http.delete(`/v2/resources/${created.id}`).set(bearer(owner)).expect(204);
      await t.http.delete(`/v2/resources/${created.id}?hard=true`).set(bearer(owner)).expect(204);
      expect(await t.db.query('SELECT id FROM resources WHERE id = $1', [created.id])).toEqual([]);
      const again = await t.http.delete(`/v2/resources/${created.id}?hard=true`).set(bearer(owner));
      expect(again.status).toBe(404);
    });

    it("answers 404 for another user's resource, leaving it alone", async () => {
      const created = await create();
      const res = await t.http.delete(`/v2/resources/${created.id}?hard=true`).set(bearer(stranger));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
      await t.http.get(`/v2/resources/${created.id}`).set(bearer(owner)).expect(200);
    });

    it('refuses a hard value other than true or false', async () => {
      const created = await create();
      const res = await t.http.delete(`/v2/resources/${created.id}?hard=yes`).set(bearer(owner));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toEqual(['hard']);
    });
  });

  async function countResources(ownerId: string): Promise<number> {
    const rows = await t.db.query('SELECT count(*)::int AS n FROM resources WHERE owner_id = $1', [ownerId]);
    return rows[0].n as number;
  }
});
