import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { AddressInfo, createConnection, createServer, Server, Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from 'pg';
import { loadConfig } from '@app/config';
import { prepareDatabase } from '@app/database';
import { createTestApp, deleteRedisKeys, newCredentials, PrivatePostgres, TestApp } from './support';

/**
 * An Idempotency-Key across PostgreSQL faults (docs/api.md#idempotency): a write refused 503
 * frees its key at once, so a client that follows Retry-After gets through as soon as
 * PostgreSQL is back; a write whose COMMIT was sent but never answered is never run a second
 * time blindly. Each suite runs its own PostgreSQL cluster and stops only that.
 */
const DATABASE = 'rms_idempotency_faults';
const REDIS_PREFIX = `${process.env.REDIS_PREFIX}:idempotency_faults`;

interface Attempt {
  status: number;
  code?: string;
  retryAfter: number | null;
}

/** The pg simple-query message of a COMMIT, as TypeORM ends a transaction. */
function isCommit(chunk: Buffer): boolean {
  return chunk[0] === 'Q'.charCodeAt(0) && chunk.subarray(5).toString('utf8') === 'COMMIT\0';
}

/**
 * A TCP relay in front of PostgreSQL that loses, once asked, the next COMMIT's answer: either
 * PostgreSQL gets the COMMIT and the API's connection is cut before the answer comes back, or
 * the connection is cut before the COMMIT reaches PostgreSQL. To the API both look the same.
 */
class CommitCuttingRelay {
  private cut: 'after_commit' | 'before_commit' | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(upstreamPort: number): Promise<CommitCuttingRelay> {
    const server = createServer();
    const relay = new CommitCuttingRelay(server);
    server.on('connection', (client) => relay.relay(client, upstreamPort));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return relay;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The next COMMIT reaches PostgreSQL and commits; its answer never reaches the API. */
  loseNextCommitAnswer(): void {
    this.cut = 'after_commit';
  }

  /** The next COMMIT never reaches PostgreSQL, which rolls the transaction back when its connection ends. */
  loseNextCommit(): void {
    this.cut = 'before_commit';
  }

  private relay(client: Socket, upstreamPort: number): void {
    const upstream = createConnection({ host: '127.0.0.1', port: upstreamPort });
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    upstream.on('close', () => client.destroy());
    upstream.on('data', (chunk) => {
      if (!client.destroyed) client.write(chunk);
    });
    client.on('data', (chunk) => {
      const cut = isCommit(chunk) ? this.cut : undefined;
      if (cut === undefined) {
        upstream.write(chunk);
        return;
      }
      this.cut = undefined;
      if (cut === 'before_commit') {
        client.destroy();
        upstream.end();
        return;
      }
      // Written to PostgreSQL before the API's side is cut; PostgreSQL ends the session after the COMMIT.
      upstream.write(chunk, () => {
        client.destroy();
        upstream.end();
      });
    });
    client.on('close', () => {
      if (!upstream.destroyed) upstream.end();
    });
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

async function accessToken(app: TestApp): Promise<string> {
  const account = newCredentials();
  const json = { 'content-type': 'application/json' };
  const registered = await fetch(`${app.url}/v2/auth/register`, { method: 'POST', headers: json, body: JSON.stringify(account) });
  expect(registered.status).toBe(201);
  const login = await fetch(`${app.url}/v2/auth/login`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email: account.email, password: account.password }),
  });
  expect(login.status).toBe(200);
  return ((await login.json()) as { data: { access_token: string } }).data.access_token;
}

/** Sends one create with its key and reads the answer. */
async function create(app: TestApp, token: string, key: string, name: string): Promise<Attempt> {
  const res = await fetch(`${app.url}/v2/resources`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ name }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json()) as { error?: { code: string } };
  const retryAfter = res.headers.get('retry-after');
  return { status: res.status, code: body.error?.code, retryAfter: retryAfter === null ? null : Number(retryAfter) };
}

describe('Idempotency-Key across PostgreSQL faults', () => {
  let postgres: PrivatePostgres;
  let relay: CommitCuttingRelay;
  let direct: TestApp;
  let relayed: TestApp;
  let rows: Client;
  const databaseUrl = (port: number): string => `postgres://postgres@127.0.0.1:${port}/${DATABASE}`;

  async function countNamed(pattern: string): Promise<Map<string, number>> {
    const result = await rows.query<{ name: string; n: number }>('SELECT name, count(*)::int AS n FROM resources WHERE name LIKE $1 GROUP BY name', [pattern]);
    return new Map(result.rows.map((row) => [row.name, row.n]));
  }

  beforeAll(async () => {
    postgres = await PrivatePostgres.start();
    relay = await CommitCuttingRelay.start(postgres.port);
    await prepareDatabase(loadConfig({ ...process.env, DATABASE_URL: databaseUrl(postgres.port) }));
    direct = await createTestApp({ env: { DATABASE_URL: databaseUrl(postgres.port), REDIS_PREFIX } });
    relayed = await createTestApp({ env: { DATABASE_URL: databaseUrl(relay.port), REDIS_PREFIX } });
  }, 120_000);
  afterAll(async () => {
    await rows?.end().catch(() => undefined);
    await direct?.close();
    await relayed?.close();
    await relay?.stop();
    postgres?.destroy();
    await deleteRedisKeys(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_PREFIX);
  });

  async function connectRows(): Promise<void> {
    await rows?.end().catch(() => undefined);
    rows = new Client({ connectionString: databaseUrl(postgres.port) });
    // Stopping the cluster ends this connection too.
    rows.on('error', () => undefined);
    await rows.connect();
  }

  it('PostgreSQL stopped for 2.5 s: clients following Retry-After with their keys get every write through once, within seconds of its return', async () => {
    await connectRows();
    const token = await accessToken(direct);
    const suffix = randomUUID().slice(0, 8);
    const clients = 5;
    const writesPerClient = 8;
    const attempts: Attempt[] = [];
    const finishedAt: number[] = [];

    const client = async (index: number): Promise<void> => {
      for (let write = 0; write < writesPerClient; write++) {
        const key = randomUUID();
        const name = `fault-${suffix}-${index}-${write}`;
        for (;;) {
          const attempt = await create(direct, token, key, name);
          attempts.push(attempt);
          if (attempt.status === 201 || attempt.code === 'idempotency_key_answer_lost') break;
          // Every refusal says when to come back; the client does exactly that.
          if (attempt.retryAfter === null) throw new Error(`${attempt.status} ${attempt.code} without Retry-After`);
          await delay(attempt.retryAfter * 1000);
        }
        finishedAt.push(Date.now());
        await delay(150);
      }
    };

    const running = Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
    await delay(400);
    postgres.stop();
    await rows.end().catch(() => undefined);
    await delay(2500);
    await postgres.startAgain();
    const backAt = Date.now();
    await running;

    await connectRows();
    const created = await countNamed(`fault-${suffix}-%`);
    expect(created.size).toBe(clients * writesPerClient);
    expect([...created.values()].every((count) => count === 1)).toBe(true);
    // The fault was met, and a 503 freed its key at once: the retry it asked for ran, never finding the key taken.
    const refused = attempts.filter((attempt) => attempt.status !== 201);
    expect(refused.filter((attempt) => attempt.status === 503).length).toBeGreaterThanOrEqual(clients);
    for (const attempt of refused) {
      expect({ status: attempt.status, code: attempt.code }).toEqual({
        status: expect.any(Number),
        // A COMMIT cut by the stop itself is settled by PostgreSQL once back, and said so.
        code: expect.stringMatching(/^(service_unavailable|idempotency_key_answer_lost)$/),
      });
    }
    // Once PostgreSQL answers, a refused write waits one Retry-After (2 s), then gets through.
    expect(Math.max(...finishedAt) - backAt).toBeLessThan(6000);
  }, 90_000);

  it("a COMMIT PostgreSQL made whose answer was lost: the retry is told it took effect, and nothing is written twice", async () => {
    await connectRows();
    const token = await accessToken(relayed);
    const key = randomUUID();
    const name = `answer-lost-${randomUUID()}`;
    relay.loseNextCommitAnswer();
    const first = await create(relayed, token, key, name);
    expect(first).toEqual({ status: 503, code: 'service_unavailable', retryAfter: 2 });
    expect((await countNamed(name)).get(name)).toBe(1);

    const retry = await create(relayed, token, key, name);
    expect(retry).toEqual({ status: 409, code: 'idempotency_key_answer_lost', retryAfter: null });
    expect((await countNamed(name)).get(name)).toBe(1);
  }, 30_000);

  it('a COMMIT that never reached PostgreSQL: the retry, once PostgreSQL has rolled it back, writes it once', async () => {
    await connectRows();
    const token = await accessToken(relayed);
    const key = randomUUID();
    const name = `commit-lost-${randomUUID()}`;
    relay.loseNextCommit();
    const first = await create(relayed, token, key, name);
    expect(first).toEqual({ status: 503, code: 'service_unavailable', retryAfter: 2 });

    let retry = await create(relayed, token, key, name);
    // PostgreSQL may not have seen the connection end yet: the COMMIT is then still "in progress".
    for (let attempt = 0; retry.code === 'idempotency_key_in_progress' && attempt < 5; attempt++) {
      await delay(retry.retryAfter! * 1000);
      retry = await create(relayed, token, key, name);
    }
    expect(retry.status).toBe(201);
    expect((await countNamed(name)).get(name)).toBe(1);
  }, 30_000);
});
