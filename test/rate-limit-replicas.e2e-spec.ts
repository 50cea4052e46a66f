import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { AddressInfo, createServer } from 'node:net';
import { randomInt } from 'node:crypto';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createUser, FROM_SOURCE, PROJECT_ROOT } from './support';

const STARTUP_TIMEOUT_MS = 120_000;

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** Starts the API as its own process, from source, with the run's database and Redis. */
function startReplica(port: number): ChildProcess {
  return spawn(process.execPath, [...FROM_SOURCE, 'apps/api/src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: String(port), RATE_LIMIT_ENABLED: 'true', TRUST_PROXY_HOPS: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Resolves once the replica answers HTTP at all. */
async function untilListening(port: number, replica: ChildProcess): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (replica.exitCode !== null) throw new Error(`The replica on port ${port} exited with ${replica.exitCode}.`);
    try {
      await request(`http://127.0.0.1:${port}`).get('/health/live');
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`The replica on port ${port} did not start.`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

async function stop(replica: ChildProcess): Promise<void> {
  if (replica.exitCode !== null) return;
  const exited = once(replica, 'exit');
  replica.kill('SIGTERM');
  await exited;
}

/**
 * Two API processes against one PostgreSQL and one Redis: one account's requests, alternating
 * between them, share a single limit.
 */
describe('rate limits across replicas', () => {
  const replicas: ChildProcess[] = [];
  let clients: TestAgent[];

  beforeAll(async () => {
    const ports = [await freePort(), await freePort()];
    replicas.push(...ports.map(startReplica));
    await Promise.all(ports.map((port, i) => untilListening(port, replicas[i])));
    // A client IP of this suite's own (X-Forwarded-For is trusted for one hop here).
    const ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`;
    clients = ports.map((port) => request.agent(`http://127.0.0.1:${port}`).set('X-Forwarded-For', ip));
  }, STARTUP_TIMEOUT_MS * 2);

  afterAll(async () => {
    await Promise.all(replicas.map(stop));
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
