import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createUser, REPLICA_STARTUP_TIMEOUT_MS, ReplicaPair, startReplicaPair } from './support';

/**
 * Two API processes against one PostgreSQL and one Redis: one account's requests, alternating
 * between them, share a single limit.
 */
describe('rate limits across replicas', () => {
  let pair: ReplicaPair | undefined;
  let clients: TestAgent[];

  beforeAll(async () => {
    pair = await startReplicaPair();
    clients = pair.clients;
  }, REPLICA_STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await pair?.stop();
  });

  it("enforces one account's limit across both replicas", async () => {
    const user = await createUser(clients[0]);
    const responses: request.Response[] = [];
    for (let i = 0; i < 61; i += 1) {
      responses.push(await clients[i % 2].get('/v2/users/me').set('Authorization', `Bearer ${user.accessToken}`));
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
