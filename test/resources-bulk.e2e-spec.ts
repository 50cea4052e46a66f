import { connectTierApi, createUser, ApiUnderTest, TestUser } from './support';
import { bearer, eventsOf, fieldsOf, seedResources } from './resources.fixtures';

/** POST and PATCH /resources/bulk: docs/api.md#bulk (atomic, 1-100 items, details per item). */
describe('resources: bulk create and bulk update', () => {
  let t: ApiUnderTest;
  let owner: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await connectTierApi();
    owner = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    stranger = await createUser(t.http, { db: t.db, plan: 'enterprise' });
  });
  afterAll(async () => {
    await t.close();
  });

  async function counts(userId: string): Promise<{ resources: number; events: number }> {
    const [row] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM resources WHERE owner_id = $1) AS resources,
              (SELECT count(*)::int FROM events WHERE owner_id = $1 AND type LIKE 'resource.%') AS events`,
      [userId],
    );
    return row;
  }

  describe('POST /resources/bulk', () => {
    it('creates every item, in order, with one resource.created event each', async () => {
      const before = await counts(owner.id);
      const resources = [{ name: 'one' }, { name: 'two', type: 'premium', tags: ['x'] }, { name: 'three', metadata: { a: 1 } }];
      const res = await t.http.post('/v2/resources/bulk').set(bearer(owner)).send({ resources });
      expect(res.status).toBe(201);
      expect(res.body.meta).toEqual({ count: 3 });
      expect(res.body.data.map((item: { name: string }) => item.name)).toEqual(['one', 'two', 'three']);
      expect(res.body.data[1]).toMatchObject({ type: 'premium', tags: ['x'], status: 'active', owner_id: owner.id, deleted_at: null });
      expect(res.body.data[2].metadata).toEqual({ a: 1 });
      expect(new Set(res.body.data.map((item: { id: string }) => item.id)).size).toBe(3);
      expect(await counts(owner.id)).toEqual({ resources: before.resources + 3, events: before.events + 3 });
      const events = await eventsOf(t, res.body.data[1].id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'resource.created', owner_id: owner.id });
      expect(events[0].data.object).toEqual(res.body.data[1]);
    });

    it('creates 100 items at once', async () => {
      const created = await seedResources(t, owner, 100, 'hundred');
      expect(created).toHaveLength(100);
    });

    it.each([
      ['101 items', { resources: Array.from({ length: 101 }, (_, i) => ({ name: `n${i}` })) }, ['resources']],
      ['no items', { resources: [] }, ['resources']],
      ['no resources field', {}, ['resources']],
      ['resources not an array', { resources: { name: 'x' } }, ['resources']],
      ['one bad item', { resources: [{ name: 'ok' }, { name: 'ok' }, { name: 'ok' }, { name: '' }] }, ['resources[3].name']],
      ['several bad items', { resources: [{ name: 'x'.repeat(101) }, { name: 'ok', type: 'enterprise' }] }, ['resources[0].name', 'resources[1].type']],
      ['an unknown field in an item', { resources: [{ name: 'ok', colour: 'red' }] }, ['resources[0].colour']],
      ['a read-only field in an item', { resources: [{ name: 'ok', id: 'res_x' }] }, ['resources[0].id']],
      ['an unknown field beside resources', { resources: [{ name: 'ok' }], dry_run: true }, ['dry_run']],
      ['an item that is a list of items', { resources: [{ name: 'ok' }, [{ name: 'ok' }]] }, ['resources']],
      ['an item that is null', { resources: [null, { name: 'ok' }] }, ['resources[0]']],
      ['an item that is text', { resources: [{ name: 'ok' }, 'nope'] }, ['resources[1]']],
    ])('refuses %s, writing nothing', async (_case, body, fields) => {
      const before = await counts(owner.id);
      const res = await t.http.post('/v2/resources/bulk').set(bearer(owner)).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toEqual(fields);
      expect(await counts(owner.id)).toEqual(before);
    });

    it('refuses an item that is not an object', async () => {
      const res = await t.http.post('/v2/resources/bulk').set(bearer(owner)).send({ resources: [{ name: 'ok' }, 'nope'] });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    });

    it('fails the whole request with 404 for an unknown organization in one item', async () => {
      const before = await counts(owner.id);
      const res = await t.http
        .post('/v2/resources/bulk')
        .set(bearer(owner))
        .send({ resources: [{ name: 'ok' }, { name: 'ok', organization_id: 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X' }] });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
      expect(fieldsOf(res.body)).toEqual(['resources[1].organization_id']);
      expect(await counts(owner.id)).toEqual(before);
    });
  });

  describe('PATCH /resources/bulk', () => {
    it('applies the changes to every id, in the order of ids, with one resource.updated event each', async () => {
      const created = await seedResources(t, owner, 3, 'bulk-update');
      await t.http.patch(`/v2/resources/${created[1].id}`).set(bearer(owner)).send({ metadata: { keep: true, drop: 1 } }).expect(200);
      const ids = [created[2].id, created[0].id, created[1].id];
      const res = await t.http
        .patch('/v2/resources/bulk')
        .set(bearer(owner))
        .send({ ids, updates: { status: 'archived', tags: ['batch'], metadata: { drop: null, added: 'x' } } });
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ count: 3 });
      expect(res.body.data.map((item: { id: string }) => item.id)).toEqual(ids);
      for (const item of res.body.data) expect(item).toMatchObject({ status: 'archived', tags: ['batch'] });
      expect(res.body.data[2].metadata).toEqual({ keep: true, added: 'x' });
      expect(res.body.data[0].metadata).toEqual({ added: 'x' });

      const events = await eventsOf(t, created[1].id);
      expect(events.map((event) => event.type)).toEqual(['resource.created', 'resource.updated', 'resource.updated']);
      expect(events[2].previous_data).toEqual({ status: 'active', tags: [], metadata: { keep: true, drop: 1 } });
      expect(events[2].data.object).toEqual(res.body.data[2]);

      const read = await t.http.get(`/v2/resources/${created[1].id}`).set(bearer(owner)).expect(200);
      expect(read.body.data).toEqual(res.body.data[2]);
      expect(read.headers.etag).toBe('"3"');
    });

    it('moves status back to active, and leaves unchanged resources without an event', async () => {
      const created = await seedResources(t, owner, 2, 'bulk-back');
      await t.http.patch(`/v2/resources/${created[0].id}`).set(bearer(owner)).send({ status: 'archived' }).expect(200);
      const res = await t.http
        .patch('/v2/resources/bulk')
        .set(bearer(owner))
        .send({ ids: created.map((item) => item.id), updates: { status: 'active' } })
        .expect(200);
      expect(res.body.data.map((item: { status: string }) => item.status)).toEqual(['active', 'active']);
      expect((await eventsOf(t, created[0].id)).map((event) => event.type)).toEqual(['resource.created', 'resource.updated', 'resource.updated']);
      expect((await eventsOf(t, created[1].id)).map((event) => event.type)).toEqual(['resource.created']);
    });

    it.each([
      ['101 ids', () => ({ ids: Array.from({ length: 101 }, (_, i) => `res_${i}`), updates: { status: 'archived' } }), ['ids']],
      ['no ids', () => ({ ids: [], updates: { status: 'archived' } }), ['ids']],
      ['ids not an array', () => ({ ids: 'res_x', updates: { status: 'archived' } }), ['ids']],
      ['no updates', (id: string) => ({ ids: [id] }), ['updates']],
      ['empty updates', (id: string) => ({ ids: [id], updates: {} }), ['updates']],
      ['an unknown update', (id: string) => ({ ids: [id], updates: { colour: 'red' } }), ['updates.colour']],
      ['a read-only update', (id: string) => ({ ids: [id], updates: { owner_id: 'usr_x' } }), ['updates.owner_id']],
      ['a bad status', (id: string) => ({ ids: [id], updates: { status: 'deleted' } }), ['updates.status']],
      ['the legacy type', (id: string) => ({ ids: [id], updates: { type: 'enterprise' } }), ['updates.type']],
      ['duplicate ids', (id: string) => ({ ids: [id, 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X', id], updates: { status: 'archived' } }), ['ids[2]']],
      ['an id that is not a string', (id: string) => ({ ids: [id, 7], updates: { status: 'archived' } }), ['ids[1]']],
    ])('refuses %s with validation_error, changing nothing', async (_case, body, fields) => {
      const [target] = await seedResources(t, owner, 1, 'bulk-invalid');
      const res = await t.http.patch('/v2/resources/bulk').set(bearer(owner)).send(body(target.id));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toEqual(fields);
      const read = await t.http.get(`/v2/resources/${target.id}`).set(bearer(owner)).expect(200);
      expect(read.body.data.status).toBe('active');
      expect(await eventsOf(t, target.id)).toHaveLength(1);
    });

    it('fails everything with 404 naming an id that does not exist, is deleted or belongs to someone else', async () => {
      const mine = await seedResources(t, owner, 3, 'bulk-404');
      const [theirs] = await seedResources(t, stranger, 1, 'theirs');
      await t.http.delete(`/v2/resources/${mine[2].id}`).set(bearer(owner)).expect(204);
      for (const [bad, index] of [
        ['res_01JD3Q0F6K8W2M4N6P8R0T2V4X', 1],
        [theirs.id, 1],
        [mine[2].id, 1],
        ['nonsense', 1],
      ] as const) {
        const res = await t.http
          .patch('/v2/resources/bulk')
          .set(bearer(owner))
          .send({ ids: [mine[0].id, bad, mine[1].id], updates: { status: 'archived' } });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('resource_not_found');
        expect(res.body.error.message).toContain(bad);
        expect(fieldsOf(res.body)).toEqual([`ids[${index}]`]);
      }
      for (const item of [mine[0], mine[1]]) {
        const read = await t.http.get(`/v2/resources/${item.id}`).set(bearer(owner)).expect(200);
        expect(read.body.data.status).toBe('active');
        expect(await eventsOf(t, item.id)).toHaveLength(1);
      }
      const theirsRead = await t.http.get(`/v2/resources/${theirs.id}`).set(bearer(stranger)).expect(200);
      expect(theirsRead.body.data.status).toBe('active');
    });

    it('fails everything when the merged metadata of one resource would pass 50 keys', async () => {
      const [full, empty] = await seedResources(t, owner, 2, 'bulk-meta');
      const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
      await t.http.patch(`/v2/resources/${full.id}`).set(bearer(owner)).send({ metadata }).expect(200);
      const res = await t.http
        .patch('/v2/resources/bulk')
        .set(bearer(owner))
        .send({ ids: [empty.id, full.id], updates: { metadata: { extra: 1 } } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toEqual(['updates.metadata']);
      const read = await t.http.get(`/v2/resources/${empty.id}`).set(bearer(owner)).expect(200);
      expect(read.body.data.metadata).toEqual({});
    });

    it('answers 403 to a platform admin who does not own every resource', async () => {
      const admin = await createUser(t.http, { db: t.db, plan: 'enterprise', role: 'admin' });
      const [target] = await seedResources(t, owner, 1, 'bulk-admin');
      const res = await t.http.patch('/v2/resources/bulk').set(bearer(admin)).send({ ids: [target.id], updates: { status: 'archived' } });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('insufficient_permissions');
      expect(fieldsOf(res.body)).toEqual(['ids[0]']);
    });
  });
});
