import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from 'pg';
import { BuiltApiReplica, haproxyBinary, newCredentials, PrivateHaproxy, waitUntil } from './support';

const INSTALLED = haproxyBinary() !== undefined;
const TITLE = 'a rolling restart of two API replicas behind HAProxy';
/** Long enough for HAProxy, checking every 200 ms, to take a replica out before it stops accepting. */
const SHUTDOWN_DELAY_MS = 1500;

/** What a failed fetch met: the network error under fetch's own `fetch failed`. */
function networkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? error.cause.message : error.message;
}

/** The status of `path` asked of `replica` directly, bypassing the load balancer, or the network error. */
async function statusOf(replica: BuiltApiReplica, path: string): Promise<number | string> {
  const res = await fetch(`${replica.url}${path}`).catch((error: unknown) => networkError(error));
  return typeof res === 'string' ? res : res.status;
}

interface Failure {
  request: string;
  outcome: string;
}

/**
 * Replicas restarted one after the other behind a load balancer that checks `/health/ready`, with
 * requests flowing all along: each replica answers 503 there from SIGTERM on while it keeps
 * serving for SHUTDOWN_DELAY_MS, so HAProxy stops sending to it before it drains and exits. No
 * request fails, and each create, carrying an Idempotency-Key, makes exactly one record.
 */
(INSTALLED ? describe : describe.skip)(INSTALLED ? TITLE : `${TITLE} (skipped: haproxy is not installed)`, () => {
  let replicas: BuiltApiReplica[] = [];
  let haproxy: PrivateHaproxy | undefined;
  let rows: Client;

  beforeAll(async () => {
    const env = { SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS), SHUTDOWN_GRACE_MS: '5000' };
    replicas = [await BuiltApiReplica.onFreePort({ env }), await BuiltApiReplica.onFreePort({ env })];
    await Promise.all(replicas.map((replica) => replica.start()));
    haproxy = await PrivateHaproxy.start(replicas.map((replica) => replica.port));
    rows = new Client({ connectionString: process.env.DATABASE_URL });
    await rows.connect();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.kill()));
    await haproxy?.stop();
    await rows?.end();
  });

  it('answers every request, and makes each record once, while both replicas restart in turn', async () => {
    const base = haproxy!.url;
    await haproxy!.allInService(20_000);
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
        const text = await res.text();
        // The error envelope says which dependency or step refused, should a restart ever fail a request.
        if (res.status < 200 || res.status > 299) failures.push({ request: label, outcome: `status ${res.status} ${text.slice(0, 300)}` });
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
        expect({ live: await statusOf(replica, '/health/live'), ready: await statusOf(replica, '/health/ready') }).toEqual({ live: 200, ready: 503 });
        await exited;
        await replica.start();
        await haproxy!.allInService(20_000);
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
