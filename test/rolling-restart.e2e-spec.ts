import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from 'pg';
import { BUILT_API, freePort, haproxyBinary, newCredentials, PrivateHaproxy, PROJECT_ROOT, waitUntil } from './support';

const INSTALLED = haproxyBinary() !== undefined;
const TITLE = 'a rolling restart of two API replicas behind HAProxy';
/** Long enough for HAProxy, checking every 200 ms, to take a replica out before it stops accepting. */
const SHUTDOWN_DELAY_MS = 1500;

/** What a failed fetch met: the network error under fetch's own `fetch failed`. */
function networkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? error.cause.message : error.message;
}

interface Failure {
  request: string;
  outcome: string;
}

/** One built API process on a fixed port (the load balancer's configuration names it), in a process group of its own. */
class Replica {
  private process?: ChildProcess;

  constructor(readonly port: number) {}

  async start(): Promise<void> {
    if (!existsSync(BUILT_API)) throw new Error(`${BUILT_API} is missing: run npm run build`);
    this.process = spawn(process.execPath, [BUILT_API], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, PORT: String(this.port), SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS), SHUTDOWN_GRACE_MS: '5000' },
      stdio: 'ignore',
      detached: true,
    });
    const started = this.process;
    await waitUntil(async () => {
      if (started.exitCode !== null) throw new Error(`the replica on port ${this.port} exited with ${started.exitCode}`);
      const ready = await fetch(`http://127.0.0.1:${this.port}/health/ready`).catch(() => undefined);
      return ready?.status === 200 ? true : undefined;
    }, 60_000);
  }

  /** SIGTERM, as an orchestrator stops a replica; resolves when the process has ended. */
  terminate(): Promise<unknown> {
    const running = this.process;
    if (!running || running.exitCode !== null || running.signalCode !== null) return Promise.resolve();
    const exited = once(running, 'exit');
    running.kill('SIGTERM');
    return exited;
  }

  /** The status of `path` asked of this replica directly, bypassing the load balancer, or the network error. */
  async status(path: string): Promise<number | string> {
    const res = await fetch(`http://127.0.0.1:${this.port}${path}`).catch((error: unknown) => networkError(error));
    return typeof res === 'string' ? res : res.status;
  }

  /** Ends the whole process group at once, whatever it was doing. */
  kill(): void {
    const running = this.process;
    if (running?.pid === undefined || running.exitCode !== null || running.signalCode !== null) return;
    process.kill(-running.pid, 'SIGKILL');
  }
}

/**
 * Replicas restarted one after the other behind a load balancer that checks `/health/ready`, with
 * requests flowing all along: each replica answers 503 there from SIGTERM on while it keeps
 * serving for SHUTDOWN_DELAY_MS, so HAProxy stops sending to it before it drains and exits. No
 * request fails, and each create, carrying an Idempotency-Key, makes exactly one record.
 */
(INSTALLED ? describe : describe.skip)(INSTALLED ? TITLE : `${TITLE} (skipped: haproxy is not installed)`, () => {
  let replicas: Replica[] = [];
  let haproxy: PrivateHaproxy | undefined;
  let rows: Client;

  beforeAll(async () => {
    replicas = [new Replica(await freePort()), new Replica(await freePort())];
    await Promise.all(replicas.map((replica) => replica.start()));
    haproxy = await PrivateHaproxy.start(replicas.map((replica) => replica.port));
    rows = new Client({ connectionString: process.env.DATABASE_URL });
    await rows.connect();
  }, 120_000);
  afterAll(async () => {
    for (const replica of replicas) replica.kill();
    await haproxy?.stop();
    await rows?.end();
  });

  /** Waits until HAProxy's checks find every server up. */
  async function allInService(): Promise<void> {
    await waitUntil(async () => {
      const statuses = Object.values((await haproxy?.serverStatuses()) ?? {});
      return statuses.length === replicas.length && statuses.every((status) => status === 'UP') ? true : undefined;
    }, 20_000);
  }

  it('answers every request, and makes each record once, while both replicas restart in turn', async () => {
    const base = haproxy!.url;
    await allInService();
    const account = newCredentials();
    const json = { 'content-type': 'application/json' };
    expect((await fetch(`${base}/v2/auth/register`, { method: 'POST', headers: json, body: JSON.stringify(account) })).status).toBe(201);
    const login = await fetch(`${base}/v2/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
    expect(login.status).toBe(200);
    const { access_token: token } = ((await login.json()) as { data: { access_token: string } }).data;
    const headers = { ...json, authorization: `Bearer ${token}` };
    const suffix = randomUUID().slice(0, 8);
    const seed = await fetch(`${base}/v2/resources`, { method: 'POST', headers, body: JSON.stringify({ name: `rolling-${suffix}-seed` }) });
    const { id: seedId } = ((await seed.json()) as { data: { id: string } }).data;

    const failures: Failure[] = [];
    const created: string[] = [];
    let sent = 0;
    let restarting = true;
    const send = async (label: string, request: () => Promise<Response>): Promise<void> => {
      sent += 1;
      try {
        const res = await request();
        await res.arrayBuffer();
        if (res.status < 200 || res.status > 299) failures.push({ request: label, outcome: `status ${res.status}` });
      } catch (error) {
        failures.push({ request: label, outcome: networkError(error) });
      }
    };
    // Four clients, each a create then a read at a time, until the restarts are over (and no more than 4,000 requests).
    const client = async (index: number): Promise<void> => {
      for (let turn = 0; restarting && sent < 4000; turn++) {
        const name = `rolling-${suffix}-${index}-${turn}`;
        await send(`POST ${name}`, () =>
          fetch(`${base}/v2/resources`, {
            method: 'POST',
            headers: { ...headers, 'idempotency-key': randomUUID() },
            body: JSON.stringify({ name }),
            signal: AbortSignal.timeout(15_000),
          }),
        );
        created.push(name);
        await send(`GET ${seedId}`, () => fetch(`${base}/v2/resources/${seedId}`, { headers, signal: AbortSignal.timeout(15_000) }));
      }
    };
    const clients = Promise.all([0, 1, 2, 3].map(client));

    try {
      await delay(500);
      for (const [index, replica] of replicas.entries()) {
        const before = sent;
        const exited = replica.terminate();
        // The load balancer takes the replica out while it still serves: nothing is sent to a closed port.
        await waitUntil(async () => ((await haproxy!.serverStatuses())[`server${index + 1}`] === 'DOWN' ? true : undefined), 5000, 20);
        expect({ live: await replica.status('/health/live'), ready: await replica.status('/health/ready') }).toEqual({ live: 200, ready: 503 });
        await exited;
        await replica.start();
        await allInService();
        // Requests kept flowing through the restart.
        expect(sent).toBeGreaterThan(before + 20);
        await delay(300);
      }
    } finally {
      restarting = false;
      await clients;
    }

    expect(failures).toEqual([]);
    const counted = await rows.query<{ name: string; n: number }>(
      'SELECT name, count(*)::int AS n FROM resources WHERE name LIKE $1 GROUP BY name',
      [`rolling-${suffix}-%-%`],
    );
    const counts = new Map(counted.rows.map((row) => [row.name, row.n]));
    expect(created.filter((name) => counts.get(name) !== 1)).toEqual([]);
    expect(counted.rows.length).toBe(created.length);
  }, 180_000);
});
