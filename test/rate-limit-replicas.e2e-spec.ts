import { randomInt } from 'node:crypto';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createUser, RunningApi, startApiReplica } from './support';

const STARTUP_TIMEOUT_MS = 120_000;

/**
 * Two API processes against one PostgreSQL and one Redis: one account's requests, alternating
 * between them, share a single limit.
 */
describe('rate limits across replicas', () => {
  let replicas: RunningApi[] = [];
  let clients: TestAgent[];

  beforeAll(async () => {
    const env = { RATE_LIMIT_ENABLED: 'true', TRUST_PROXY_HOPS: '1' };
    replicas = await Promise.all([startApiReplica(env), startApiReplica(env)]);
    // A client IP of this suite's own (X-Forwarded-For is trusted for one hop here).
    const ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`;
    clients = replicas.map((replica) => request.agent(replica.url).set('X-Forwarded-For', ip));
  }, STARTUP_TIMEOUT_MS * 2);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
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
