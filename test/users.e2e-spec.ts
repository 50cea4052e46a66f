import { DataSource } from 'typeorm';
import { connectTierApi, createUser, errorFields, errorMessagesFor, expectError, ApiUnderTest, TestUser } from './support';

/** The calling user: GET and PATCH /v2/users/me and the `user.updated` event (docs/api.md#users, docs/api.md#events). */

interface EventRow {
  data: { object: Record<string, unknown> };
  previous_data: Record<string, unknown> | null;
  owner_id: string;
}

describe('users (me)', () => {
  let t: ApiUnderTest;
  let db: DataSource;

  beforeAll(async () => {
    t = await connectTierApi();
    db = t.db;
  });
  afterAll(async () => {
    await t.close();
  });

  const getMe = (user: TestUser) => t.http.get('/v2/users/me').set('Authorization', `Bearer ${user.accessToken}`);
  const patchMe = (user: TestUser, body: unknown) =>
    t.http
      .patch('/v2/users/me')
      .set('Authorization', `Bearer ${user.accessToken}`)
      .send(body as object);

  function updatedEvents(userId: string): Promise<EventRow[]> {
    return db.query('SELECT data, previous_data, owner_id FROM events WHERE owner_id = $1 AND type = $2 ORDER BY id', [
      userId,
      'user.updated',
    ]);
  }

  describe('GET /v2/users/me', () => {
    it('answers 200 with the calling user as registered, never the password', async () => {
      const user = await createUser(t.http);
      const res = await getMe(user).set('X-Request-ID', 'client-req_1.a');

      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toBe('client-req_1.a');
      expect(res.body).toEqual({
        data: {
          id: user.id,
          email: user.email,
          username: user.username,
          role: 'user',
          plan: 'free',
          profile: { first_name: null, last_name: null, avatar_url: null },
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      });
      expect(res.text).not.toContain(user.password);
      expect(res.text).not.toMatch(/password/i);
    });

    it('answers each caller with their own record', async () => {
      const [first, second] = [await createUser(t.http), await createUser(t.http)];
      expect((await getMe(first)).body.data.id).toBe(first.id);
      expect((await getMe(second)).body.data.id).toBe(second.id);
    });

    it('needs a credential: 401 authentication_required', async () => {
      const res = await t.http.get('/v2/users/me');
      expectError(res, 401, 'authentication_required');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
    });
  });

  describe('PATCH /v2/users/me', () => {
    it('updates the profile, answers 200 with the user, and GET shows it', async () => {
      const user = await createUser(t.http);
      const before = (await getMe(user)).body.data;
      const profile = { first_name: 'Ada', last_name: 'Lovelace', avatar_url: 'https://example.com/ada.png' };

      const res = await patchMe(user, { profile });

      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(res.body).toEqual({ data: { ...before, profile, updated_at: expect.any(String) } });
      expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
      expect((await getMe(user)).body.data).toEqual(res.body.data);
    });

    it('writes user.updated with the new record and the prior values of the changed fields only', async () => {
      const user = await createUser(t.http);
      await patchMe(user, { profile: { first_name: 'Ada', last_name: 'Byron' } }).expect(200);
      const res = await patchMe(user, { profile: { first_name: 'Ada', last_name: 'Lovelace' } }).expect(200);

      const events = await updatedEvents(user.id);
      expect(events).toHaveLength(2);
      expect(events[0].previous_data).toEqual({ profile: { first_name: null, last_name: null } });
      expect(events[1].data.object).toEqual(res.body.data);
      expect(events[1].previous_data).toEqual({ profile: { last_name: 'Byron' } });
      expect(events[1].owner_id).toBe(user.id);
    });

    it('keeps the fields that are not sent', async () => {
      const user = await createUser(t.http);
      await patchMe(user, { profile: { first_name: 'Ada', avatar_url: 'https://example.com/a.png' } }).expect(200);
      const res = await patchMe(user, { profile: { last_name: 'Lovelace' } }).expect(200);
      expect(res.body.data.profile).toEqual({
        first_name: 'Ada',
        last_name: 'Lovelace',
        avatar_url: 'https://example.com/a.png',
      });
    });

    it('clears a field sent as null, and records the value it had', async () => {
      const user = await createUser(t.http);
      await patchMe(user, { profile: { first_name: 'Ada', avatar_url: 'https://example.com/a.png' } }).expect(200);
      const res = await patchMe(user, { profile: { first_name: null, avatar_url: null } }).expect(200);
      expect(res.body.data.profile).toEqual({ first_name: null, last_name: null, avatar_url: null });
      const events = await updatedEvents(user.id);
      expect(events[events.length - 1].previous_data).toEqual({
        profile: { first_name: 'Ada', avatar_url: 'https://example.com/a.png' },
      });
    });

    it.each<[string, Record<string, unknown>]>([
      ['an empty profile', {}],
      ['the current values', { first_name: 'Ada' }],
    ])('changes nothing for %s: 200, no event, updated_at kept', async (_name, profile) => {
      const user = await createUser(t.http);
      const current = (await patchMe(user, { profile: { first_name: 'Ada' } }).expect(200)).body.data;
      const res = await patchMe(user, { profile });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(current);
      expect(await updatedEvents(user.id)).toHaveLength(1);
    });

    it.each<[string, Record<string, unknown>]>([
      ['a 1-character first_name', { first_name: 'A' }],
      ['a 100-character first_name', { first_name: 'a'.repeat(100) }],
      ['a 100-character last_name', { last_name: 'b'.repeat(100) }],
      ['non-Latin names', { first_name: 'Ада', last_name: '李' }],
      ['an https avatar_url with path and query', { avatar_url: 'https://cdn.example.com/u/ada.png?size=64' }],
      ['a 2048-character avatar_url', { avatar_url: `https://example.com/${'a'.repeat(2048 - 20)}` }],
    ])('accepts %s', async (_name, profile) => {
      const user = await createUser(t.http);
      const res = await patchMe(user, { profile });
      expect(res.status).toBe(200);
      expect(res.body.data.profile).toEqual(expect.objectContaining(profile));
      if (typeof profile.avatar_url === 'string' && profile.avatar_url.length > 2000) {
        expect(profile.avatar_url).toHaveLength(2048);
      }
    });

    it.each<[string, unknown, string, RegExp]>([
      ['an empty body', {}, 'profile', /required/],
      ['profile null', { profile: null }, 'profile', /required|object/],
      ['profile a string', { profile: 'Ada' }, 'profile', /object/],
      ['profile an array', { profile: [{ first_name: 'Ada' }] }, 'profile', /object/],
      ['first_name empty', { profile: { first_name: '' } }, 'profile.first_name', /1-100/],
      ['first_name of 101 characters', { profile: { first_name: 'a'.repeat(101) } }, 'profile.first_name', /1-100/],
      ['first_name not a string', { profile: { first_name: 42 } }, 'profile.first_name', /string/],
      ['last_name empty', { profile: { last_name: '' } }, 'profile.last_name', /1-100/],
      ['last_name of 101 characters', { profile: { last_name: 'b'.repeat(101) } }, 'profile.last_name', /1-100/],
      ['last_name not a string', { profile: { last_name: ['Lovelace'] } }, 'profile.last_name', /string/],
      ['avatar_url over http', { profile: { avatar_url: 'http://example.com/a.png' } }, 'profile.avatar_url', /https/],
      ['avatar_url not a URL', { profile: { avatar_url: 'not a url' } }, 'profile.avatar_url', /https/],
      ['avatar_url without a scheme', { profile: { avatar_url: 'example.com/a.png' } }, 'profile.avatar_url', /https/],
      ['avatar_url over ftp', { profile: { avatar_url: 'ftp://example.com/a.png' } }, 'profile.avatar_url', /https/],
      ['avatar_url javascript:', { profile: { avatar_url: 'javascript:alert(1)' } }, 'profile.avatar_url', /https/],
      [
        'avatar_url of 2049 characters',
        { profile: { avatar_url: `https://example.com/${'a'.repeat(2049 - 20)}` } },
        'profile.avatar_url',
        /2048/,
      ],
      ['avatar_url not a string', { profile: { avatar_url: 7 } }, 'profile.avatar_url', /string/],
      ['an unknown field in profile', { profile: { nickname: 'ada' } }, 'profile.nickname', /not a known field/],
      ['an unknown top-level field', { profile: {}, nickname: 'ada' }, 'nickname', /not a known field/],
      ['a flat first_name next to profile', { profile: {}, first_name: 'Ada' }, 'first_name', /not a known field/],
      ['email', { profile: {}, email: 'new@example.com' }, 'email', /not a known field/],
      ['username', { profile: {}, username: 'renamed' }, 'username', /not a known field/],
      ['role (no self-promotion)', { profile: {}, role: 'admin' }, 'role', /not a known field/],
      ['plan', { profile: {}, plan: 'enterprise' }, 'plan', /not a known field/],
      ['id (server-set)', { profile: {}, id: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X' }, 'id', /read-only/],
      ['created_at (server-set)', { profile: {}, created_at: '2024-01-01T00:00:00.000Z' }, 'created_at', /read-only/],
      ['updated_at (server-set)', { profile: {}, updated_at: '2024-01-01T00:00:00.000Z' }, 'updated_at', /read-only/],
    ])(
      'refuses %s: 400 validation_error naming the field; nothing changes, no event',
      async (_name, body, field, message) => {
        const user = await createUser(t.http);
        const before = (await getMe(user)).body.data;

        const res = await patchMe(user, body);

        expectError(res, 400, 'validation_error');
        expect(errorFields(res)).toEqual([field]);
        expect(errorMessagesFor(res, field)).toMatch(message);
        expect((await getMe(user)).body.data).toEqual(before);
        expect(await updatedEvents(user.id)).toHaveLength(0);
      },
    );

    it('lists every offending field at once, nested paths included', async () => {
      const user = await createUser(t.http);
      const res = await patchMe(user, {
        profile: { first_name: '', avatar_url: 'http://example.com/a.png', nickname: 'x' },
        email: 'new@example.com',
      });
      expectError(res, 400, 'validation_error');
      expect(errorFields(res).sort()).toEqual(['email', 'profile.avatar_url', 'profile.first_name', 'profile.nickname']);
      expect(await updatedEvents(user.id)).toHaveLength(0);
    });

    it('refuses profile fields sent flat, naming them and the missing profile', async () => {
      const user = await createUser(t.http);
      const res = await patchMe(user, { first_name: 'Ada' });
      expectError(res, 400, 'validation_error');
      expect(errorFields(res).sort()).toEqual(['first_name', 'profile']);
      expect(errorMessagesFor(res, 'first_name')).toMatch(/not a known field/);
    });

    it('does not apply the valid fields of a refused request', async () => {
      const user = await createUser(t.http);
      await patchMe(user, { profile: { first_name: 'Ada', avatar_url: 'http://example.com/a.png' } }).expect(400);
      expect((await getMe(user)).body.data.profile.first_name).toBeNull();
    });

    it('answers invalid_request to a body that is not an object', async () => {
      const user = await createUser(t.http);
      expectError(await patchMe(user, [{ profile: {} }]), 400, 'invalid_request');
    });

    it('needs a credential: 401 authentication_required, no event', async () => {
      const user = await createUser(t.http);
      const res = await t.http.patch('/v2/users/me').send({ profile: { first_name: 'Mallory' } });
      expectError(res, 401, 'authentication_required');
      expect(await updatedEvents(user.id)).toHaveLength(0);
    });

    it('keeps both of two concurrent changes and records each prior value once', async () => {
      const user = await createUser(t.http);
      await Promise.all([
        patchMe(user, { profile: { first_name: 'Ada' } }).expect(200),
        patchMe(user, { profile: { last_name: 'Lovelace' } }).expect(200),
      ]);
      expect((await getMe(user)).body.data.profile).toEqual({
        first_name: 'Ada',
        last_name: 'Lovelace',
        avatar_url: null,
      });
      const previous = (await updatedEvents(user.id)).map((event) => event.previous_data);
      expect(previous).toHaveLength(2);
      expect(previous).toEqual(
        expect.arrayContaining([{ profile: { first_name: null } }, { profile: { last_name: null } }]),
      );
    });
  });
});
