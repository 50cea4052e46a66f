import request from 'supertest';
import { createUser, replicaPairForSuite } from './support';

/**
 * Two API processes against one PostgreSQL and one Redis: one account's requests, alternating
 * between them, share a single limit.
 */
describe('rate limits across replicas', () => {
  const replicas = replicaPairForSuite();

  it("enforces one account's limit across both replicas", async () => {
    const user = await createUser(replicas.clients[0]);
    const responses: request.Response[] = [];
    for (let i = 0; i < 61; i += 1) {
      responses.push(await replicas.clients[i % 2].get('/v2/users/me').set('Authorization', `Bearer ${user.accessToken}`));
    }

    const allowed = responses.slice(0, 60);
    expect(allowed.map((res) => res.status)).toEqual(new Array(60).fill(200));
    expect(allowed.map((res) => Number(res.headers['x-ratelimit-remaining']))).toEqual(
      Array.from({ length: 60 }, (_, i) => 59 - i),
    );
    expect(new Set(responses.map((res) => res.headers['x-ratelimit-reset'])).size).toBe(1);

    const refused = responses[60];
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
