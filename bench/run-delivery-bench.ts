/**
 * The delivery benchmark (`npm run bench`, or `BENCH_SCENARIOS=delivery`): the built API and two
 * built workers on a scratch database and Redis prefix, a local HTTPS receiver (self-signed,
 * trusted through NODE_EXTRA_CA_CERTS) and 5 webhooks of one user. It measures
 *   (i)  throughput: BENCH_DELIVERY_EVENTS events (10,000) committed at once, fanned out to the
 *        5 webhooks: deliveries per second until the last one arrives;
 *   (ii) latency: events committed at 200 per second for BENCH_DELIVERY_SECONDS (10), one
 *        transaction each, as the API writes them: commit (the event's created_at) to the
 *        receiver's arrival, p50 and p99. They are written in PostgreSQL directly, so that the
 *        rate is the one asked for whatever the API manages on the machine (its own benchmark).
 * Everything it creates (database, Redis keys, processes, certificate) is removed at the end.
 */
import { randomBytes } from 'node:crypto';
import { Client, Pool } from 'pg';
import { newId } from '@app/common';
import { RunningApi, startBuiltApi } from '@app/testing/built-api';
import { RunningWorker, startBuiltWorker } from '@app/testing/built-worker';
import { HttpsReceiver, startHttpsReceiver } from '@app/testing/https-receiver';
import { deleteRedisKeys } from '@app/testing/test-environment';
import { BENCH_DATABASE_SERVER, BENCH_REDIS_URL, benchServiceEnv } from './bench-service-env';

const RUN = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const DATABASE = `rms_bench_delivery_${RUN}`;
const SERVER = BENCH_DATABASE_SERVER;
const REDIS_URL = BENCH_REDIS_URL;
const EVENTS = Number(process.env.BENCH_DELIVERY_EVENTS ?? 10_000);
const SECONDS = Number(process.env.BENCH_DELIVERY_SECONDS ?? 10);
const RATE = 200;
const WEBHOOKS = 5;
const WORKERS = 2;
/** Events per INSERT of the throughput phase. */
const INSERT_CHUNK = 2000;

const serviceEnv: NodeJS.ProcessEnv = {
  ...benchServiceEnv(DATABASE),
  LOG_FORMAT: 'json',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
};

/** First arrival of each delivery (`<path> <event id>`), in epoch milliseconds. */
const arrivals = new Map<string, number>();
/** Commit-to-arrival of each delivery of the latency phase, in milliseconds. */
const commitToArrival = new Map<string, number>();
let duplicates = 0;

async function call<T>(api: RunningApi, method: string, path: string, body: unknown, token?: string): Promise<T> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

/** Commits `count` resource.created events of one owner, in chunks of one transaction each. */
async function commitEvents(db: Client, ownerId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  await db.query('BEGIN');
  for (let first = 0; first < count; first += INSERT_CHUNK) {
    const chunk = Array.from({ length: Math.min(INSERT_CHUNK, count - first) }, () => newId('evt'));
    ids.push(...chunk);
    await db.query(
      `INSERT INTO events (id, type, data, owner_id)
       SELECT id, 'resource.created', jsonb_build_object('object', jsonb_build_object(
                'id', 'res_' || substr(id, 5), 'object', 'resource', 'name', 'Benchmark resource',
                'owner_id', $2::text, 'status', 'active', 'metadata', '{}'::jsonb, 'tags', '[]'::jsonb)),
              $2
         FROM unnest($1::text[]) AS e(id)`,
      [chunk, ownerId],
    );
  }
  await db.query('COMMIT');
  return ids;
}

async function throughput(db: Client, ownerId: string): Promise<string> {
  const before = arrivals.size;
  const expected = EVENTS * WEBHOOKS;
  const started = Date.now();
  await commitEvents(db, ownerId, EVENTS);
  const committed = Date.now();
  const done = await until(() => arrivals.size - before >= expected, 5 * 60_000);
  const seconds = (Date.now() - committed) / 1000;
  const delivered = arrivals.size - before;
  const rate = Math.round(delivered / seconds);
  const note = done ? '' : ` (stopped waiting: ${delivered} of ${expected})`;
  return `${delivered} deliveries in ${seconds.toFixed(1)} s (commit took ${committed - started} ms): ${rate} deliveries/s${note}`;
}

async function latency(ownerId: string): Promise<string> {
  // A pool, so that a slow commit does not hold back the ones scheduled after it.
  const pool = new Pool({ connectionString: serviceEnv.DATABASE_URL, max: 8 });
  const inserts: Promise<unknown>[] = [];
  const started = Date.now();
  const total = RATE * SECONDS;
  let failures = 0;
  // One event every 1000/RATE ms, on a schedule that does not drift with slow commits.
  for (let sent = 0; sent < total; sent++) {
    const wait = started + (sent * 1000) / RATE - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const insert = pool.query(
      `INSERT INTO events (id, type, data, owner_id)
       VALUES ($1, 'resource.created', jsonb_build_object('object', jsonb_build_object('name', 'Latency probe')), $2)`,
      [newId('evt'), ownerId],
    );
    inserts.push(insert.catch(() => void (failures += 1)));
  }
  await Promise.all(inserts);
  await pool.end();
  const rate = Math.round(total / ((Date.now() - started) / 1000));
  const expected = (total - failures) * WEBHOOKS;
  await until(() => commitToArrival.size >= expected, 120_000);
  const sorted = [...commitToArrival.values()].sort((a, b) => a - b);
  return (
    `${rate} events/s, ${sorted.length} of ${expected} deliveries: ` +
    `p50 ${percentile(sorted, 0.5)} ms, p99 ${percentile(sorted, 0.99)} ms, max ${sorted[sorted.length - 1]} ms`
  );
}

async function main(): Promise<void> {
  const receiver: HttpsReceiver = await startHttpsReceiver();
  let phase: 'throughput' | 'latency' = 'throughput';
  receiver.respond((request, res) => {
    res.writeHead(200).end('ok');
    const key = `${request.url} ${String(request.headers['x-webhook-event-id'])}`;
    if (arrivals.has(key)) {
      duplicates += 1;
      return;
    }
    const now = Date.now();
    arrivals.set(key, now);
    if (phase === 'latency') {
      const { created_at: createdAt } = JSON.parse(request.body) as { created_at: string };
      commitToArrival.set(key, now - Date.parse(createdAt));
    }
  });
  // The receiver keeps every request it gets; the benchmark only needs the first arrival of each.
  const trim = setInterval(() => receiver.received.splice(0), 1000);

  let api: RunningApi | undefined;
  const workers: RunningWorker[] = [];
  const db = new Client({ connectionString: serviceEnv.DATABASE_URL });
  const rows: [string, string][] = [];
  try {
    api = await startBuiltApi(serviceEnv);
    for (let index = 0; index < WORKERS; index++) {
      workers.push(await startBuiltWorker({ ...serviceEnv, NODE_EXTRA_CA_CERTS: receiver.certFile }));
    }
    await db.connect();
    const credentials = { email: `bench_${RUN}@example.com`, username: `bench_${RUN}`, password: 'benchmark-password' };
    const user = await call<{ id: string }>(api, 'POST', '/v2/auth/register', credentials);
    await db.query(`UPDATE users SET plan = 'enterprise' WHERE id = $1`, [user.id]);
    const login = await call<{ access_token: string }>(api, 'POST', '/v2/auth/login', {
      email: credentials.email,
      password: credentials.password,
    });
    for (let index = 0; index < WEBHOOKS; index++) {
      await call(
        api,
        'POST',
        '/v2/webhooks',
        { url: `https://127.0.0.1:${receiver.port}/hook-${index}`, events: ['resource.created'] },
        login.access_token,
      );
    }
    rows.push([`(i) ${EVENTS} events x ${WEBHOOKS} webhooks`, await throughput(db, user.id)]);
    phase = 'latency';
    rows.push([`(ii) ${RATE} events/s for ${SECONDS} s`, await latency(user.id)]);
    rows.push(['repeated arrivals (at-least-once)', String(duplicates)]);
  } finally {
    clearInterval(trim);
    await Promise.all(workers.map((worker) => worker.terminate()));
    await api?.stop();
    await db.end().catch(() => undefined);
    await receiver.close();
    const admin = new Client({ connectionString: `${SERVER}/postgres` });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
    await admin.end();
    await deleteRedisKeys(REDIS_URL, DATABASE);
  }
  const width = Math.max(...rows.map(([name]) => name.length));
  process.stdout.write(`\nWebhook delivery: ${WORKERS} workers, ${WEBHOOKS} webhooks, local HTTPS receiver\n`);
  for (const [name, figure] of rows) process.stdout.write(`${name.padEnd(width)}  ${figure}\n`);
}

main().catch((error: Error) => {
  process.stderr.write(`delivery benchmark failed: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
