import { connectTierApi, createUser, errorFields, expectError, ApiUnderTest, TestUser } from './support';

/** The event log: GET /v2/events and /v2/events/{id} (docs/api.md#cursor-pagination, docs/api.md#scopes, docs/api.md#events). */
describe('Events', () => {
  let t: ApiUnderTest;
  let owner: TestUser;
  let stranger: TestUser;
  let admin: TestUser;
  let resourceId: string;

  const bearer = (user: TestUser): [string, string] => ['Authorization', `Bearer ${user.accessToken}`];

  beforeAll(async () => {
    t = await connectTierApi();
    owner = await createUser(t.http);
    stranger = await createUser(t.http);
    admin = await createUser(t.http, { db: t.db, role: 'admin' });
    const created = await t.http.post('/v2/resources').set(...bearer(owner)).send({ name: 'first' }).expect(201);
    resourceId = created.body.data.id;
    await t.http.patch(`/v2/resources/${resourceId}`).set(...bearer(owner)).send({ name: 'second' }).expect(200);
  });
  afterAll(() => t.close());

  it("lists the owner's events newest first, with previous_data on update", async () => {
    const res = await t.http.get('/v2/events').set(...bearer(owner)).expect(200);
    const types = res.body.data.map((event: { type: string }) => event.type);
    expect(types.slice(0, 3)).toEqual(['resource.updated', 'resource.created', 'user.created']);
    expect(res.body.data[0]).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'resource.updated',
      created_at: expect.any(String),
      data: { object: expect.objectContaining({ id: resourceId, name: 'second' }) },
      previous_data: expect.objectContaining({ name: 'first' }),
    });
    expect(res.body.data[1].previous_data).toBeNull();
    expect(res.body.meta).toEqual({ cursor: { next: null, prev: null, has_more: false }, limit: 20 });
  });

  it('hides other users’ events; an admin sees all', async () => {
    const own = await t.http.get('/v2/events').set(...bearer(owner)).expect(200);
    const eventId = own.body.data[0].id;
    const theirs = await t.http.get('/v2/events?limit=100').set(...bearer(stranger)).expect(200);
    expect(theirs.body.data.map((event: { id: string }) => event.id)).not.toContain(eventId);
    expectError(await t.http.get(`/v2/events/${eventId}`).set(...bearer(stranger)), 404, 'resource_not_found');
    const all = await t.http.get('/v2/events?limit=100').set(...bearer(admin)).expect(200);
    expect(all.body.data.map((event: { id: string }) => event.id)).toContain(eventId);
    const one = await t.http.get(`/v2/events/${eventId}`).set(...bearer(admin)).expect(200);
    expect(one.body.data.id).toBe(eventId);
  });

  it('pages with a cursor bound to the caller', async () => {
    const first = await t.http.get('/v2/events?limit=1').set(...bearer(owner)).expect(200);
    expect(first.body.meta.cursor.has_more).toBe(true);
    const next = first.body.meta.cursor.next as string;
    const second = await t.http.get(`/v2/events?limit=1&cursor=${next}`).set(...bearer(owner)).expect(200);
    expect(second.body.data[0].id < first.body.data[0].id).toBe(true);
    expectError(await t.http.get(`/v2/events?limit=1&cursor=${next}`).set(...bearer(stranger)), 400, 'invalid_request');
    expectError(await t.http.get('/v2/events?cursor=tampered').set(...bearer(owner)), 400, 'invalid_request');
  });

  it.each(['0', '101', 'x'])('refuses limit=%s', async (limit) => {
    const res = await t.http.get(`/v2/events?limit=${limit}`).set(...bearer(owner));
    expectError(res, 400, 'validation_error');
    expect(errorFields(res)).toEqual(['limit']);
  });

  it('answers 404 to an unknown or malformed id, 401 without credentials', async () => {
    expectError(await t.http.get('/v2/events/evt_01M83J1BG441AVKTCT1S4B49EA').set(...bearer(owner)), 404, 'resource_not_found');
    expectError(await t.http.get('/v2/events/nope').set(...bearer(owner)), 404, 'resource_not_found');
    expectError(await t.http.get('/v2/events'), 401, 'authentication_required');
  });
});
