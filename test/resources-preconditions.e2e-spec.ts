import { connectTierApi, createUser, ApiUnderTest, TestUser } from './support';
import { bearer, eventsOf } from './resources.fixtures';

/** ETag, If-Match and If-None-Match on single resources: docs/api.md#conditional-requests. */
describe('resources: ETag and preconditions', () => {
  let t: ApiUnderTest;
  let owner: TestUser;

  beforeAll(async () => {
    t = await connectTierApi();
    owner = await createUser(t.http, { db: t.db, plan: 'enterprise' });
  });
  afterAll(async () => {
    await t.close();
  });

  async function create(): Promise<string> {
    const res = await t.http.post('/v2/resources').set(bearer(owner)).send({ name: 'Versioned' }).expect(201);
    return res.body.data.id as string;
  }

  describe('If-None-Match on GET', () => {
    it.each(['"1"', '*', 'W/"1"', '"7", "1"'])('answers 304 without a body for %s', async (header) => {
      const id = await create();
      const res = await t.http.get(`/v2/resources/${id}`).set(bearer(owner)).set('If-None-Match', header);
      expect(res.status).toBe(304);
      expect(res.text).toBe('');
      expect(res.headers.etag).toBe('"1"');
    });

    it('answers 200 with the body when the tag is stale', async () => {
      const id = await create();
      await t.http.patch(`/v2/resources/${id}`).set(bearer(owner)).send({ name: 'Changed' }).expect(200);
      const res = await t.http.get(`/v2/resources/${id}`).set(bearer(owner)).set('If-None-Match', '"1"');
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"2"');
      expect(res.body.data.name).toBe('Changed');
    });
  });

  describe('through fetch, which sends Cache-Control: no-cache with every conditional request', () => {
    const headers = (extra: Record<string, string>): Record<string, string> => ({
      authorization: `Bearer ${owner.accessToken}`,
      'cache-control': 'no-cache',
      ...extra,
    });

    it.each(['"1"', 'W/"1"', '*', '"5", "1"'])('If-None-Match %s answers 304 with the ETag and no body', async (tag) => {
      const id = await create();
      const res = await fetch(`${t.url}/v2/resources/${id}`, { headers: headers({ 'if-none-match': tag }) });
      expect(res.status).toBe(304);
      expect(res.headers.get('etag')).toBe('"1"');
      expect(await res.text()).toBe('');
    });

    it('a stale If-None-Match answers 200 with the current representation', async () => {
      const id = await create();
      const res = await fetch(`${t.url}/v2/resources/${id}`, { headers: headers({ 'if-none-match': '"2"' }) });
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBe('"1"');
      expect(((await res.json()) as { data: { id: string } }).data.id).toBe(id);
    });

    it('If-Match decides PATCH and DELETE: 412 in the envelope when stale, applied when current', async () => {
      const id = await create();
      const body = JSON.stringify({ name: 'Fetched' });
      const json = headers({ 'content-type': 'application/json', 'if-match': '"9"' });
      const stale = await fetch(`${t.url}/v2/resources/${id}`, { method: 'PATCH', headers: json, body });
      expect(stale.status).toBe(412);
      expect(((await stale.json()) as { error: { code: string } }).error.code).toBe('precondition_failed');
      const current = await fetch(`${t.url}/v2/resources/${id}`, {
        method: 'PATCH',
        headers: { ...json, 'if-match': 'W/"0", "1"' },
        body,
      });
      expect(current.status).toBe(200);
      expect(current.headers.get('etag')).toBe('"2"');
      const staleDelete = await fetch(`${t.url}/v2/resources/${id}`, { method: 'DELETE', headers: headers({ 'if-match': 'W/"2"' }) });
      expect(staleDelete.status).toBe(412);
      const removed = await fetch(`${t.url}/v2/resources/${id}`, { method: 'DELETE', headers: headers({ 'if-match': '*' }) });
      expect(removed.status).toBe(204);
    });
  });

  describe('If-Match on PATCH, PUT and DELETE', () => {
    it('applies a PATCH whose If-Match is current and refuses a stale one with 412', async () => {
      const id = await create();
      const first = await t.http.patch(`/v2/resources/${id}`).set(bearer(owner)).set('If-Match', '"1"').send({ name: 'First' });
      expect(first.status).toBe(200);
      expect(first.headers.etag).toBe('"2"');
      const stale = await t.http.patch(`/v2/resources/${id}`).set(bearer(owner)).set('If-Match', '"1"').send({ name: 'Second' });
      expect(stale.status).toBe(412);
      expect(stale.body.error.code).toBe('precondition_failed');
      const read = await t.http.get(`/v2/resources/${id}`).set(bearer(owner)).expect(200);
      expect(read.body.data.name).toBe('First');
      expect(await eventsOf(t, id)).toHaveLength(2);
    });

    it.each([
      ['*', 200],
      ['"9", "1"', 200],
      ['W/"1"', 412],
      ['"2"', 412],
      ['garbage', 412],
    ])('treats If-Match %s on a version 1 resource as %i', async (header, status) => {
      const id = await create();
      const res = await t.http.patch(`/v2/resources/${id}`).set(bearer(owner)).set('If-Match', header).send({ name: 'x' });
      expect(res.status).toBe(status);
    });

    it('guards PUT', async () => {
      const id = await create();
      const stale = await t.http.put(`/v2/resources/${id}`).set(bearer(owner)).set('If-Match', '"5"').send({ name: 'Replaced' });
      expect(stale.status).toBe(412);
      expect(stale.body.error.code).toBe('precondition_failed');
      const current = await t.http.put(`/v2/resources/${id}`).set(bearer(owner)).set('If-Match', '"1"').send({ name: 'Replaced' });
      expect(current.status).toBe(200);
      expect(current.headers.etag).toBe('"2"');
    });

    it('guards DELETE, soft and hard', async () => {
      const id = await create();
      const stale = await t.http.delete(`/v2/resources/${id}`).set(bearer(owner)).set('If-Match', '"2"');
      expect(stale.status).toBe(412);
      expect(stale.body.error.code).toBe('precondition_failed');
      await t.http.get(`/v2/resources/${id}`).set(bearer(owner)).expect(200);
      await t.http.delete(`/v2/resources/${id}`).set(bearer(owner)).set('If-Match', '"1"').expect(204);
      // The soft delete was a write: the version moved on.
      const staleHard = await t.http.delete(`/v2/resources/${id}?hard=true`).set(bearer(owner)).set('If-Match', '"1"');
      expect(staleHard.status).toBe(412);
      await t.http.delete(`/v2/resources/${id}?hard=true`).set(bearer(owner)).set('If-Match', '"2"').expect(204);
    });

    it('answers 404 before looking at If-Match when the resource does not exist', async () => {
      const res = await t.http
        .patch('/v2/resources/res_01JD3Q0F6K8W2M4N6P8R0T2V4X')
        .set(bearer(owner))
        .set('If-Match', '*')
        .send({ name: 'x' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
    });

    it('lets exactly one of two concurrent PATCHes with the same If-Match win', async () => {
      for (let round = 0; round < 5; round++) {
        const id = await create();
        const attempts = await Promise.all(
          ['left', 'right'].map((name) =>
            t.http.patch(`/v2/resources/${id}`).set(bearer(owner)).set('If-Match', '"1"').send({ name }),
          ),
        );
        expect(attempts.map((res) => res.status).sort()).toEqual([200, 412]);
        const winner = attempts.find((res) => res.status === 200);
        const read = await t.http.get(`/v2/resources/${id}`).set(bearer(owner)).expect(200);
        expect(read.body.data.name).toBe(winner?.body.data.name);
        expect(read.headers.etag).toBe('"2"');
        expect(await eventsOf(t, id)).toHaveLength(2);
      }
    });
  });
});
