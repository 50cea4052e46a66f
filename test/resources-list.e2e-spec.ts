import { connectTierApi, createUser, ApiUnderTest, TestUser } from './support';
import { bearer, fieldsOf, seedResources } from './resources.fixtures';

interface ListItem {
  id: string;
  name: string;
  type: string;
  status: string;
  created_at: string;
  updated_at: string;
}

/** GET /resources: docs/api.md#pagination (offset and cursor pagination, sort, filters, fields). */
describe('resources: listing', () => {
  let t: ApiUnderTest;
  let owner: TestUser;
  let other: TestUser;
  let seeded: Array<{ id: string; name: string }>;

  beforeAll(async () => {
    t = await connectTierApi();
    owner = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    other = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    seeded = await seedResources(t, owner, 250);
    await seedResources(t, other, 3, 'other');
  });
  afterAll(async () => {
    await t.close();
  });

  function list(query: string, user = owner) {
    return t.http.get(`/v2/resources${query ? `?${query}` : ''}`).set(bearer(user));
  }

  /**
   * Follows `next` (or `prev`) from the page at `start` (the first page without one) until it
   * runs out, collecting every item; `between` runs before each further page.
   */
  async function walk(
    query: string,
    direction: 'next' | 'prev',
    options: { user?: TestUser; start?: string; between?: () => Promise<void> } = {},
  ) {
    const user = options.user ?? owner;
    const page = (cursor?: string) => list(cursor ? `${query}&cursor=${encodeURIComponent(cursor)}` : query, user).expect(200);
    const items: ListItem[] = [];
    let res = await page(options.start);
    for (;;) {
      // Pages read backwards come last to first; each page is in the order of the sort.
      if (direction === 'next') items.push(...(res.body.data as ListItem[]));
      else items.unshift(...(res.body.data as ListItem[]));
      const cursor = res.body.meta.cursor[direction] as string | null;
      if (!cursor) return { items, last: res };
      if (options.between) await options.between();
      res = await page(cursor);
    }
  }

  describe('offset style', () => {
    it('answers the first page by default: list form, newest first, full meta', async () => {
      const res = await list('');
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(20);
      expect(Object.keys(res.body.data[0]).sort()).toEqual(['created_at', 'id', 'name', 'status', 'type', 'updated_at']);
      expect(res.body.meta).toEqual({
        page: 1,
        per_page: 20,
        total: 250,
        total_pages: 13,
        links: {
          first: '/v2/resources?page=1&per_page=20',
          prev: null,
          next: '/v2/resources?page=2&per_page=20',
          last: '/v2/resources?page=13&per_page=20',
        },
      });
      const created = res.body.data.map((item: ListItem) => item.created_at);
      expect([...created].sort().reverse()).toEqual(created);
    });

    it('pages through everything exactly once', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const res = await list(`page=${page}&per_page=100&sort=name`).expect(200);
        seen.push(...res.body.data.map((item: ListItem) => item.name));
      }
      expect(seen).toEqual(seeded.map((item) => item.name).sort());
    });

    it('answers a page past the end with no data and correct meta', async () => {
      const res = await list('page=99&per_page=100').expect(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta).toMatchObject({ page: 99, per_page: 100, total: 250, total_pages: 3 });
      expect(res.body.meta.links.next).toBeNull();
      expect(res.body.meta.links.last).toBe('/v2/resources?page=3&per_page=100');
    });

    it('keeps filters, sort and fields in the links', async () => {
      const res = await list('filter[status]=active&sort=name&fields=name&filter[type]=standard,premium&per_page=50&page=2').expect(200);
      expect(res.body.meta.links.next).toContain('filter[type]=standard,premium');
      const next = new URL(res.body.meta.links.next, 'http://host');
      expect(next.pathname).toBe('/v2/resources');
      expect(Object.fromEntries(next.searchParams)).toEqual({
        'filter[status]': 'active',
        'filter[type]': 'standard,premium',
        sort: 'name',
        fields: 'name',
        page: '3',
        per_page: '50',
      });
      const prev = new URL(res.body.meta.links.prev, 'http://host');
      expect(prev.searchParams.get('page')).toBe('1');
      expect(prev.searchParams.get('sort')).toBe('name');
    });

    it.each([
      ['per_page=0', 'per_page'],
      ['per_page=101', 'per_page'],
      ['per_page=abc', 'per_page'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
    ])('refuses %s with validation_error', async (query, field) => {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toEqual([field]);
    });

    it('lists every bad parameter at once', async () => {
      const res = await list('page=0&per_page=500&sort=colour&fields=secret');
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body).sort()).toEqual(['fields', 'page', 'per_page', 'sort']);
    });
  });

  describe('sort, filters and fields', () => {
    it('sorts by name both ways, with id breaking ties', async () => {
      const ascending = await list('sort=name&per_page=5').expect(200);
      expect(ascending.body.data.map((item: ListItem) => item.name)).toEqual(['seed-0000', 'seed-0001', 'seed-0002', 'seed-0003', 'seed-0004']);
      const descending = await list('sort=-name&per_page=2').expect(200);
      expect(descending.body.data.map((item: ListItem) => item.name)).toEqual(['seed-0249', 'seed-0248']);
    });

    it('sorts by several fields', async () => {
      const ids = seeded.slice(0, 3).map((item) => item.id);
      await t.http.patch('/v2/resources/bulk').set(bearer(owner)).send({ ids, updates: { status: 'archived' } }).expect(200);
      try {
        const res = await list('sort=status,-name&per_page=100').expect(200);
        const names = res.body.data.map((item: ListItem) => `${item.status}:${item.name}`);
        expect(names.slice(0, 2)).toEqual(['active:seed-0249', 'active:seed-0248']);
        const archivedFirst = await list('sort=-status,name&per_page=3').expect(200);
        expect(archivedFirst.body.data.map((item: ListItem) => item.name)).toEqual(['seed-0000', 'seed-0001', 'seed-0002']);
      } finally {
        await t.http.patch('/v2/resources/bulk').set(bearer(owner)).send({ ids, updates: { status: 'active' } }).expect(200);
      }
    });

    it.each([
      ['sort=colour', 'sort'],
      ['sort=name,,type', 'sort'],
      ['sort=name,-name', 'sort'],
      ['sort=id', 'sort'],
      ['filter[foo]=bar', 'filter[foo]'],
      ['filter[status]=deleted', 'filter[status]'],
      ['filter[type]=gold', 'filter[type]'],
      ['filter[organization_id]=acme', 'filter[organization_id]'],
      ['fields=name,secret', 'fields'],
      ['include=owner', 'include'],
      ['sort=name&sort=type', 'sort'],
    ])('refuses %s with validation_error', async (query, field) => {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toEqual([field]);
    });

    it('filters by status and type, one value or a list', async () => {
      const [archived] = seeded.slice(10, 11);
      const [premium] = seeded.slice(11, 12);
      await t.http.patch(`/v2/resources/${archived.id}`).set(bearer(owner)).send({ status: 'archived' }).expect(200);
      await t.http.patch(`/v2/resources/${premium.id}`).set(bearer(owner)).send({ type: 'premium' }).expect(200);
      try {
        const onlyArchived = await list('filter[status]=archived').expect(200);
        expect(onlyArchived.body.data.map((item: ListItem) => item.id)).toEqual([archived.id]);
        expect(onlyArchived.body.meta.total).toBe(1);
        const both = await list('filter[status]=active,archived&per_page=1').expect(200);
        expect(both.body.meta.total).toBe(250);
        const onlyPremium = await list('filter[type]=premium').expect(200);
        expect(onlyPremium.body.data.map((item: ListItem) => item.id)).toEqual([premium.id]);
        const combined = await list('filter[type]=premium&filter[status]=archived').expect(200);
        expect(combined.body.data).toEqual([]);
      } finally {
        await t.http.patch(`/v2/resources/${archived.id}`).set(bearer(owner)).send({ status: 'active' }).expect(200);
        await t.http.patch(`/v2/resources/${premium.id}`).set(bearer(owner)).send({ type: 'standard' }).expect(200);
      }
    });

    it('accepts the legacy type enterprise as a filter that matches nothing', async () => {
      const res = await list('filter[type]=enterprise').expect(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta.total).toBe(0);
    });

    it('narrows to an organization', async () => {
      const res = await list('filter[organization_id]=org_01JD3Q0F6K8W2M4N6P8R0T2V4X').expect(200);
      expect(res.body.data).toEqual([]);
    });

    it('returns id and the requested fields only', async () => {
      const res = await list('fields=name,metadata&per_page=2&sort=name').expect(200);
      expect(res.body.data).toEqual([
        { id: seeded[0].id, name: 'seed-0000', metadata: {} },
        { id: seeded[1].id, name: 'seed-0001', metadata: {} },
      ]);
    });

    it("shows only the caller's resources, every owner's to a platform admin, and never deleted ones", async () => {
      const mine = await list('per_page=100', other).expect(200);
      expect(mine.body.meta.total).toBe(3);
      const [doomed] = mine.body.data as ListItem[];
      await t.http.delete(`/v2/resources/${doomed.id}`).set(bearer(other)).expect(204);
      const after = await list('per_page=100', other).expect(200);
      expect(after.body.meta.total).toBe(2);
      expect(after.body.data.map((item: ListItem) => item.id)).not.toContain(doomed.id);

      const admin = await createUser(t.http, { db: t.db, plan: 'enterprise', role: 'admin' });
      const all = await list('per_page=1', admin).expect(200);
      expect(all.body.meta.total).toBeGreaterThanOrEqual(252);
    });
  });

  describe('cursor style', () => {
    it('answers the first page when limit is given, with cursor meta', async () => {
      const res = await list('limit=10').expect(200);
      expect(res.body.data).toHaveLength(10);
      expect(res.body.meta).toEqual({ cursor: { next: expect.any(String), prev: null, has_more: true }, limit: 10 });
      expect(res.body.meta.cursor.next).toMatch(/^[A-Za-z0-9_-]+$/);
    });

    it('walks forward over all 250 exactly once, in the order of offset pages', async () => {
      const { items, last } = await walk('limit=37', 'next');
      expect(items).toHaveLength(250);
      expect(new Set(items.map((item) => item.id)).size).toBe(250);
      expect(last.body.meta.cursor).toMatchObject({ next: null, has_more: false, prev: expect.any(String) });
      const offset = [];
      for (let page = 1; page <= 3; page++) offset.push(...(await list(`page=${page}&per_page=100`).expect(200)).body.data);
      expect(items.map((item) => item.id)).toEqual(offset.map((item: ListItem) => item.id));
    });

    it('walks back from the last page over all 250 exactly once', async () => {
      const forward = await walk('limit=40&sort=name', 'next');
      const lastPage = forward.last.body.data as ListItem[];
      const backward = await walk('limit=40&sort=name', 'prev', { start: forward.last.body.meta.cursor.prev });
      expect(backward.last.body.meta.cursor).toMatchObject({ prev: null, has_more: false, next: expect.any(String) });
      expect([...backward.items, ...lastPage].map((item) => item.name)).toEqual(seeded.map((item) => item.name).sort());
    });

    it('steps back and forth between two pages consistently', async () => {
      const first = await list('limit=25&sort=-name').expect(200);
      const second = await list(`limit=25&sort=-name&cursor=${first.body.meta.cursor.next}`).expect(200);
      const back = await list(`limit=25&sort=-name&cursor=${second.body.meta.cursor.prev}`).expect(200);
      expect(back.body.data).toEqual(first.body.data);
      expect(back.body.meta.cursor).toMatchObject({ prev: null, has_more: false, next: expect.any(String) });
      const again = await list(`limit=25&sort=-name&cursor=${back.body.meta.cursor.next}`).expect(200);
      expect(again.body.data).toEqual(second.body.data);
    });

    it('walks a sort of mixed directions both ways', async () => {
      const forward = await walk('limit=60&sort=type,-name', 'next');
      expect(forward.items.map((item) => item.name)).toEqual(seeded.map((item) => item.name).sort().reverse());
      const backward = await walk('limit=60&sort=type,-name', 'prev', { start: forward.last.body.meta.cursor.prev });
      expect(backward.items.map((item) => item.name)).toEqual(
        seeded.map((item) => item.name).sort().reverse().slice(0, 250 - forward.last.body.data.length),
      );
    });

    it('sees every resource exactly once while new ones are being created', async () => {
      const made: string[] = [];
      const create = async (): Promise<void> => {
        const res = await t.http.post('/v2/resources').set(bearer(owner)).send({ name: `during-${made.length}` }).expect(201);
        made.push(res.body.data.id);
      };
      const seededIds = new Set(seeded.map((item) => item.id));
      try {
        // Newest first: the new ones land before the walk's position and are not seen.
        const newestFirst = await walk('limit=50', 'next', { between: create });
        expect(newestFirst.items.map((item) => item.id).sort()).toEqual([...seededIds].sort());

        // Oldest first: the new ones land ahead and are seen too, each once.
        const oldestFirst = await walk('limit=100&sort=created_at', 'next', { between: create });
        const ids = oldestFirst.items.map((item) => item.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.filter((id) => seededIds.has(id))).toHaveLength(250);
        expect(ids).toEqual(expect.arrayContaining(made.slice(0, 5)));
      } finally {
        for (const id of made) await t.http.delete(`/v2/resources/${id}?hard=true`).set(bearer(owner)).expect(204);
      }
    });

    it('keeps the fields choice with cursors', async () => {
      const res = await list('limit=2&fields=tags&sort=name').expect(200);
      expect(res.body.data).toEqual([
        { id: seeded[0].id, tags: [] },
        { id: seeded[1].id, tags: [] },
      ]);
      const next = await list(`limit=2&fields=tags&sort=name&cursor=${res.body.meta.cursor.next}`).expect(200);
      expect(next.body.data.map((item: { id: string }) => item.id)).toEqual([seeded[2].id, seeded[3].id]);
    });

    it.each([
      ['page=1&cursor=abc', 'page with cursor'],
      ['per_page=10&limit=10', 'per_page with limit'],
      ['page=2&limit=10', 'page with limit'],
    ])('refuses %s (%s) as invalid_request', async (query) => {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    });

    it.each(['limit=0', 'limit=101', 'limit=ten'])('refuses %s with validation_error', async (query) => {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(fieldsOf(res.body)).toEqual(['limit']);
    });

    it('refuses a tampered cursor as invalid_request', async () => {
      const first = await list('limit=5').expect(200);
      const cursor = first.body.meta.cursor.next as string;
      const bytes = Buffer.from(cursor, 'base64url');
      bytes[bytes.length - 3] ^= 1;
      for (const bad of [bytes.toString('base64url'), `${cursor}A`, 'not a cursor', 'eyJkIjoibiJ9', cursor.slice(0, 10)]) {
        const res = await list(`limit=5&cursor=${encodeURIComponent(bad)}`);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
      }
    });

    it('refuses a cursor reused with other filters, another sort, or by another user', async () => {
      const first = await list('limit=5&filter[status]=active&sort=name').expect(200);
      const cursor = first.body.meta.cursor.next as string;
      await list(`limit=5&filter[status]=active&sort=name&cursor=${cursor}`).expect(200);
      for (const query of [
        `limit=5&sort=name&cursor=${cursor}`,
        `limit=5&filter[status]=archived&sort=name&cursor=${cursor}`,
        `limit=5&filter[status]=active&sort=-name&cursor=${cursor}`,
        `limit=5&filter[status]=active&cursor=${cursor}`,
      ]) {
        const res = await list(query);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
      }
      const stolen = await list(`limit=5&filter[status]=active&sort=name&cursor=${cursor}`, other);
      expect(stolen.status).toBe(400);
      expect(stolen.body.error.code).toBe('invalid_request');
    });

    it('accepts the same cursor with another limit or other fields', async () => {
      const first = await list('limit=5&sort=name').expect(200);
      const res = await list(`limit=7&sort=name&fields=name&cursor=${first.body.meta.cursor.next}`).expect(200);
      expect(res.body.data.map((item: ListItem) => item.name)).toEqual(
        ['seed-0005', 'seed-0006', 'seed-0007', 'seed-0008', 'seed-0009', 'seed-0010', 'seed-0011'],
      );
    });
  });
});
