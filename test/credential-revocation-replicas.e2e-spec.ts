import { createUser, replicaPairForSuite } from './support';

/**
 * Two API processes against one PostgreSQL and one Redis, rate limited as production runs:
 * a credential revoked through one is refused by the other at once (an API key within the
 * moment its revocation takes to be published), even while the other remembers it as verified.
 */
describe('credential revocation across replicas', () => {
  const replicas = replicaPairForSuite();

  it('refuses a logged-out access token on every replica at once, counted by client IP', async () => {
    const user = await createUser(replicas.clients[0]);
    const bearer = ['Authorization', `Bearer ${user.accessToken}`] as const;
    for (const client of replicas.clients) await client.get('/v2/users/me').set(...bearer).expect(200);

    await replicas.clients[1].post('/v2/auth/logout').set(...bearer).expect(204);

    for (const client of replicas.clients) {
      const refused = await client.get('/v2/users/me').set(...bearer);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('authentication_required');
      expect(refused.body.error.message).toMatch(/revoked/);
      expect(refused.headers['x-ratelimit-remaining']).toEqual(expect.any(String));
    }

    // The refusals were counted by client IP, as failed authentications, not against the account:
    // its window holds the two reads and the logout, then this read.
    const login = await replicas.clients[0].post('/v2/auth/login').send({ email: user.email, password: user.password }).expect(200);
    const fresh = await replicas.clients[0].get('/v2/users/me').set('Authorization', `Bearer ${login.body.data.access_token}`).expect(200);
    expect(fresh.headers['x-ratelimit-remaining']).toBe('56');
  });

  it('refuses a session logged out through one replica on the other at once, though it remembers the session', async () => {
    const user = await createUser(replicas.clients[0]);
    const login = await replicas.clients[0].post('/v2/session/login').send({ email: user.email, password: user.password }).expect(200);
    const cookie = ['Cookie', (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0]] as const;
    // Both replicas read the session once, and so remember it.
    for (const client of replicas.clients) await client.get('/v2/users/me').set(...cookie).expect(200);

    await replicas.clients[1].post('/v2/session/logout').set(...cookie).set('X-CSRF-Token', login.body.data.csrf_token).expect(204);

    for (const client of replicas.clients) {
      const refused = await client.get('/v2/users/me').set(...cookie);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('authentication_required');
      expect(refused.body.error.message).toMatch(/session has ended/);
    }
  });

  it('refuses an API key revoked through one replica on the other within a second', async () => {
    const user = await createUser(replicas.clients[0]);
    const bearer = ['Authorization', `Bearer ${user.accessToken}`] as const;
    const created = await replicas.clients[0].post('/v2/api-keys').set(...bearer).send({ name: 'replicas', scopes: ['read:users'] }).expect(201);
    const { key, id } = created.body.data as { key: string; id: string };
    // Both replicas verify the key once, and so hold it as verified.
    for (const client of replicas.clients) await client.get('/v2/users/me').set('X-API-Key', key).expect(200);

    await replicas.clients[0].delete(`/v2/api-keys/${id}`).set(...bearer).expect(204);
    const revokedAt = Date.now();
    let refused = await replicas.clients[1].get('/v2/users/me').set('X-API-Key', key);
    while (refused.status === 200 && Date.now() - revokedAt < 1_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      refused = await replicas.clients[1].get('/v2/users/me').set('X-API-Key', key);
    }
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/revoked/);
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
  });
});
