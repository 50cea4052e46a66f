import { createTestApp, createUser, TestApp } from '@app/testing';

describe('platform', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('smoke', async () => {
    const user = await createUser(t.http);
    const me = await t.http.get('/v2/users/me').set('Authorization', `Bearer ${user.accessToken}`);
    expect(me.status).toBe(200);
    expect(me.body.data.email).toBe(user.email);
    const notFound = await t.http.get('/v2/nope');
    expect(notFound.status).toBe(404);
    expect(notFound.body.error.code).toBe('not_found');
    const method = await t.http.delete('/v2/users/me').set('Authorization', `Bearer ${user.accessToken}`);
    expect(method.status).toBe(405);
  });
});
