/**
 * The delivery benchmark (`npm run bench`, or `BENCH_SCENARIOS=delivery`): the service's webhook
 * delivery beside a bare sender, on one local HTTPS receiver (self-signed, trusted through
 * NODE_EXTRA_CA_CERTS) and 5 webhooks of one user each.
 *   - the service: the built API (to register the user and the webhooks) and two built workers on
 *     a scratch database and Redis prefix; events go through the outbox relay, BullMQ and the
 *     delivery processor;
 *   - the bare sender (bench/bare-sender.ts): two processes with the workers' settings
 *     (WEBHOOK_DELIVERY_CONCURRENCY deliveries in flight each, DATABASE_POOL_SIZE connections each)
 *     on a second scratch database migrated the same way; each event is written with its five
 *     deliveries, in the event's transaction, and the processes claim them with SKIP LOCKED.
 * Each of them is measured in BENCH_ROUNDS rounds (3) that alternate which goes first:
 *   (i)  throughput: BENCH_DELIVERY_EVENTS events (10,000) committed at once, fanned out to the
 *        5 webhooks: deliveries per second from the commit until the last one arrives, and the CPU
 *        time per 1,000 deliveries of the senders and of PostgreSQL (the backends of the senders
 *        and of the writer, which for the bare sender also writes the deliveries; Redis, shared
 *        with other work, is left out);
 *   (ii) latency: events committed at 200 per second (1,000 deliveries a second) for
 *        BENCH_DELIVERY_SECONDS (10), one transaction each: commit (the event's created_at, the
 *        payload's `created_at`) to the receiver's arrival, p50, p99 and max. They are written in
 *        PostgreSQL directly, so that the rate is the one asked for whatever the API manages.
 * With BENCH_COMPARE_DIST (another build's `dist/`, run on BENCH_COMPARE_NODE, this Node by
 * default), that build's workers are a third sender in the same alternating rounds, on a database
 * of their own migrated and registered by this build's API (so it must share the schema): the way
 * to see a change of the delivery path on this noisy machine.
 * The table is printed and written to .bench/delivery-results.md. Everything it creates
 * (databases, Redis keys, processes, certificate) is removed at the end.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { newId } from '@app/common';
import { RunningApi, startBuiltApi } from '@app/testing/built-api';
import { RunningWorker, startBuiltWorker } from '@app/testing/built-worker';
import { HttpsReceiver, startHttpsReceiver } from '@app/testing/https-receiver';
import { deleteRedisKeys } from '@app/testing/test-environment';
import { BENCH_DATABASE_SERVER, BENCH_REDIS_URL, benchServiceEnv } from './bench-service-env';
import { cpuTimeOf } from './process-cpu';
import { median } from './process-memory';

const RUN = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const SERVICE_DATABASE = `rms_bench_delivery_${RUN}`;
const BARE_DATABASE = `rms_bench_bare_${RUN}`;
const COMPARED_DATABASE = `rms_bench_compared_${RUN}`;
const COMPARED_DIST = process.env.BENCH_COMPARE_DIST;
const COMPARED_NODE = process.env.BENCH_COMPARE_NODE ?? process.execPath;
const SERVER = BENCH_DATABASE_SERVER;
const REDIS_URL = BENCH_REDIS_URL;
const EVENTS = Number(process.env.BENCH_DELIVERY_EVENTS ?? 10_000);
const SECONDS = Number(process.env.BENCH_DELIVERY_SECONDS ?? 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const RATE = 200;
const WEBHOOKS = 5;
/** Worker processes of the service, and processes of the bare sender. */
const PROCESSES = 2;
/** Events per INSERT of the throughput phase. */
const INSERT_CHUNK = 2000;
/** The target of the latency phase: p99 commit to arrival at 1,000 deliveries a second. */
const P99_TARGET_MS = 100;
/** The target of the throughput phase: the service's rate against the bare sender's. */
const THROUGHPUT_TARGET = 0.7;
/**
 * The benchmark's own connections carry this name, so that the CPU of the senders' backends leaves
 * them out; all but the throughput phase's writer, whose backend writes the events (and, for the
 * bare sender, their deliveries) and so counts with the senders' database work.
 */
const BENCH_APPLICATION = 'rms-delivery-bench';
const WRITER_APPLICATION = 'rms-delivery-bench-writer';
const LOG_DIR = '.bench';

const envOf = (database: string): NodeJS.ProcessEnv => ({
  ...benchServiceEnv(database),
  LOG_FORMAT: 'json',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
});

/** The UTC ISO 8601 form `toISOString` gives, as PostgreSQL writes it. */
const ISO_NOW = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** What the receiver counts for the measurement under way: arrivals on one sender's paths. */
interface Tally {
  pathPrefix: string;
  arrived: number;
  /** Commit to arrival of each delivery, in the latency phase only. */
  latencies: number[] | null;
}

let tally: Tally | null = null;
const seen = new Set<string>();
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

/** CPU time (user + system, all threads) of a process so far, in milliseconds; undefined once it is gone. */
function cpuMsOf(pid: number): number | undefined {
  const cpu = cpuTimeOf(pid);
  return cpu && cpu.all / 1000;
}

/**
 * CPU spent by a sender's processes and by the PostgreSQL backends of its database (pool
 * connections come and go, so they are looked up every half second; a backend first seen after
 * the start counts from zero).
 */
class CpuMeter {
  private readonly start = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  private sampling: Promise<void> = Promise.resolve();

  constructor(
    private readonly admin: Client,
    private readonly sender: Sender,
  ) {}

  async begin(): Promise<void> {
    for (const pid of await this.pids()) {
      const used = cpuMsOf(pid);
      if (used !== undefined) this.start.set(pid, used);
    }
    this.timer = setInterval(() => {
      this.sampling = this.sample();
    }, 500);
  }

  /** Milliseconds of CPU of the senders and of their backends since `begin`. */
  async end(): Promise<{ senders: number; database: number }> {
    clearInterval(this.timer);
    await this.sampling;
    await this.sample();
    const senderPids = new Set(this.sender.pids());
    const spent = { senders: 0, database: 0 };
    for (const [pid, used] of this.last) {
      const delta = used - (this.start.get(pid) ?? 0);
      if (senderPids.has(pid)) spent.senders += delta;
      else spent.database += delta;
    }
    return spent;
  }

  private async pids(): Promise<number[]> {
    const { rows } = await this.admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name <> $2`,
      [this.sender.database, BENCH_APPLICATION],
    );
    return [...this.sender.pids(), ...rows.map((row) => row.pid)];
  }

  async sample(): Promise<void> {
    for (const pid of await this.pids()) {
      const used = cpuMsOf(pid);
      if (used !== undefined) this.last.set(pid, used);
    }
  }
}

/** One way of delivering, with how its events are written. */
interface Sender {
  name: string;
  /** Its webhooks' paths on the receiver start with this. */
  pathPrefix: string;
  database: string;
  databaseUrl: string;
  ownerId: string;
  webhookIds: string[];
  pids(): number[];
  /** Writes `count` events of the throughput phase on `db`, inside the caller's transaction. */
  writeEvents(db: Client, count: number): Promise<void>;
  /** Commits one event of the latency phase. */
  commitOne(pool: Pool): Promise<unknown>;
}

/** The `data` of a throughput event, keys in the order jsonb gives them back (so the same bytes in both). */
const resourceCreated = (eventId: string, ownerId: string) => ({
  object: {
    id: `res_${eventId.slice(4)}`,
    name: 'Benchmark resource',
    tags: [],
    object: 'resource',
    status: 'active',
    metadata: {},
    owner_id: ownerId,
  },
});
const LATENCY_PROBE = { object: { name: 'Latency probe' } };

/** The service (this build's workers, or the compared build's): events only; its relay makes the deliveries. */
function serviceSender(
  name: string,
  pathPrefix: string,
  database: string,
  ownerId: string,
  webhookIds: string[],
  workers: RunningWorker[],
): Sender {
  return {
    name,
    pathPrefix,
    database,
    databaseUrl: `${SERVER}/${database}`,
    ownerId,
    webhookIds,
    pids: () => workers.map((worker) => worker.process.pid ?? 0),
    async writeEvents(db, count) {
      for (let first = 0; first < count; first += INSERT_CHUNK) {
        const ids = Array.from({ length: Math.min(INSERT_CHUNK, count - first) }, () => newId('evt'));
        const rows = ids.map((id) => ({ id, data: resourceCreated(id, ownerId) }));
        await db.query(
          `INSERT INTO events (id, type, data, owner_id)
           SELECT id, 'resource.created', data, $2 FROM jsonb_to_recordset($1::jsonb) AS e(id text, data jsonb)`,
          [JSON.stringify(rows), ownerId],
        );
      }
    },
    commitOne: (pool) =>
      pool.query(`INSERT INTO events (id, type, data, owner_id) VALUES ($1, 'resource.created', $2::jsonb, $3)`, [
        newId('evt'),
        JSON.stringify(LATENCY_PROBE),
        ownerId,
      ]),
  };
}

/**
 * The bare sender: each event is written with one delivery per webhook in the same statement,
 * whose body is the payload the relay would have made (`toEventPayload`), `created_at` included:
 * written around PostgreSQL's now(), the event's own created_at.
 */
function bareSender(database: string, ownerId: string, webhookIds: string[], processes: ChildProcess[]): Sender {
  const deliveriesOf = (events: { id: string; data: unknown }[]) =>
    events.flatMap((event) => {
      const head = `{"id":"${event.id}","type":"resource.created","created_at":"`;
      const tail = `","data":${JSON.stringify(event.data)},"previous_data":null}`;
      return webhookIds.map((webhookId) => ({ id: newId('dlv'), webhook_id: webhookId, event_id: event.id, head, tail }));
    });
  const write = (db: Client | Pool, events: { id: string; data: unknown }[]) =>
    db.query(
      `WITH written AS (
         INSERT INTO events (id, type, data, owner_id, published_at)
         SELECT id, 'resource.created', data, $2, now() FROM jsonb_to_recordset($1::jsonb) AS e(id text, data jsonb))
       INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, test, next_attempt_at)
       SELECT id, webhook_id, event_id, 'resource.created', head || ${ISO_NOW} || tail, false, now()
         FROM jsonb_to_recordset($3::jsonb) AS d(id text, webhook_id text, event_id text, head text, tail text)`,
      [JSON.stringify(events), ownerId, JSON.stringify(deliveriesOf(events))],
    );
  return {
    name: 'bare sender',
    pathPrefix: '/bare-',
    database,
    databaseUrl: `${SERVER}/${database}`,
    ownerId,
    webhookIds,
    pids: () => processes.map((child) => child.pid ?? 0),
    async writeEvents(db, count) {
      for (let first = 0; first < count; first += INSERT_CHUNK) {
        const ids = Array.from({ length: Math.min(INSERT_CHUNK, count - first) }, () => newId('evt'));
        await write(db, ids.map((id) => ({ id, data: resourceCreated(id, ownerId) })));
      }
    },
    commitOne: (pool) => write(pool, [{ id: newId('evt'), data: LATENCY_PROBE }]),
  };
}

interface Throughput {
  rate: number;
  seconds: number;
  delivered: number;
  complete: boolean;
  /** CPU milliseconds per 1,000 deliveries. */
  senderCpu: number;
  databaseCpu: number;
}

async function throughput(admin: Client, sender: Sender): Promise<Throughput> {
  const expected = EVENTS * WEBHOOKS;
  const db = new Client({ connectionString: sender.databaseUrl, application_name: WRITER_APPLICATION });
  await db.connect();
  const meter = new CpuMeter(admin, sender);
  await meter.begin();
  const counting: Tally = { pathPrefix: sender.pathPrefix, arrived: 0, latencies: null };
  tally = counting;
  try {
    await db.query('BEGIN');
    await sender.writeEvents(db, EVENTS);
    await db.query('COMMIT');
    // The writer's backend ends with its connection: its CPU is read before that.
    await meter.sample();
  } finally {
    await db.end();
  }
  const committed = Date.now();
  const complete = await until(() => counting.arrived >= expected, 5 * 60_000);
  const seconds = (Date.now() - committed) / 1000;
  const cpu = await meter.end();
  tally = null;
  const perThousand = (ms: number): number => (ms / Math.max(1, counting.arrived)) * 1000;
  return {
    rate: counting.arrived / seconds,
    seconds,
    delivered: counting.arrived,
    complete,
    senderCpu: perThousand(cpu.senders),
    databaseCpu: perThousand(cpu.database),
  };
}

interface Latency {
  eventsPerSecond: number;
  arrived: number;
  expected: number;
  p50: number;
  p99: number;
  max: number;
}

async function latency(sender: Sender): Promise<Latency> {
  // A pool, so that a slow commit does not hold back the ones scheduled after it.
  const pool = new Pool({ connectionString: sender.databaseUrl, max: 8, application_name: BENCH_APPLICATION });
  const counting: Tally = { pathPrefix: sender.pathPrefix, arrived: 0, latencies: [] };
  tally = counting;
  const inserts: Promise<unknown>[] = [];
  const started = Date.now();
  const total = RATE * SECONDS;
  let failures = 0;
  // One event every 1000/RATE ms, on a schedule that does not drift with slow commits.
  for (let sent = 0; sent < total; sent++) {
    const wait = started + (sent * 1000) / RATE - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inserts.push(sender.commitOne(pool).catch(() => void (failures += 1)));
  }
  await Promise.all(inserts);
  await pool.end();
  const eventsPerSecond = total / ((Date.now() - started) / 1000);
  const expected = (total - failures) * WEBHOOKS;
  await until(() => counting.arrived >= expected, 120_000);
  tally = null;
  const sorted = (counting.latencies ?? []).sort((a, b) => a - b);
  return {
    eventsPerSecond,
    arrived: counting.arrived,
    expected,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Registers a user on the API, with the enterprise plan and five webhooks to the receiver. */
async function registerOwner(
  api: RunningApi,
  databaseUrl: string,
  receiver: HttpsReceiver,
  pathPrefix: string,
): Promise<{ ownerId: string; webhookIds: string[] }> {
  const credentials = { email: `bench_${RUN}@example.com`, username: `bench_${RUN}`, password: 'benchmark-password' };
  const user = await call<{ id: string }>(api, 'POST', '/v2/auth/register', credentials);
  const db = new Client({ connectionString: databaseUrl, application_name: BENCH_APPLICATION });
  await db.connect();
  await db.query(`UPDATE users SET plan = 'enterprise' WHERE id = $1`, [user.id]);
  await db.end();
  const login = await call<{ access_token: string }>(api, 'POST', '/v2/auth/login', {
    email: credentials.email,
    password: credentials.password,
  });
  const webhookIds: string[] = [];
  for (let index = 0; index < WEBHOOKS; index++) {
    const webhook = await call<{ id: string }>(
      api,
      'POST',
      '/v2/webhooks',
      { url: `https://127.0.0.1:${receiver.port}${pathPrefix}${index}`, events: ['resource.created'] },
      login.access_token,
    );
    webhookIds.push(webhook.id);
  }
  return { ownerId: user.id, webhookIds };
}

/** Starts a bare sender process and resolves once it listens for commits. */
async function startBareSender(env: NodeJS.ProcessEnv, index: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(__dirname, 'bare-sender.js')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
    process.stderr.write(`bare sender ${index}: ${chunk}`);
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (chunk.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`bare sender ${index} exited with ${code}: ${errors}`)));
  });
  await ready;
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

interface Measured {
  throughput: Throughput[];
  latency: Latency[];
}

const fmt = (value: number): string => (Number.isFinite(value) ? value.toFixed(0) : '-');
const spread = (values: number[]): string =>
  `${fmt(median(values))} (${fmt(Math.min(...values))}-${fmt(Math.max(...values))})`;

function table(senders: Sender[], measured: Map<Sender, Measured>): string {
  const [service, bare, compared] = senders.map((sender) => measured.get(sender) as Measured);
  const serviceRate = median(service.throughput.map((t) => t.rate));
  const bareRate = median(bare.throughput.map((t) => t.rate));
  const serviceP99 = median(service.latency.map((l) => l.p99));
  const incomplete = [...measured.values()].some(
    (m) => m.throughput.some((t) => !t.complete) || m.latency.some((l) => l.arrived < l.expected),
  );
  // The compared build's columns: its figures and the service's against them, when there is one.
  const ifCompared = (cell: () => string): string[] => (compared ? [cell()] : []);
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  const row = (name: string, pick: (m: Measured) => number[], ratio: string, target: string, met: string): string =>
    line([
      name,
      spread(pick(service)),
      spread(pick(bare)),
      ...ifCompared(() => spread(pick(compared))),
      ratio,
      ...ifCompared(() => `${((median(pick(service)) / median(pick(compared))) * 100).toFixed(0)}%`),
      target,
      met,
    ]);
  const rate = (m: Measured): number[] => m.throughput.map((t) => t.rate);
  return [
    `Webhook delivery: ${PROCESSES} processes each (service: workers; bare: bench/bare-sender.ts` +
      `${compared ? `; compared build: the workers of ${COMPARED_DIST} on ${COMPARED_NODE}` : ''}), ` +
      `${WEBHOOKS} webhooks, local HTTPS receiver. Medians of ${ROUNDS} alternating rounds (lowest-highest).`,
    '',
    line(['scenario', 'service', 'bare sender', ...ifCompared(() => 'compared build'), 'service / bare', ...ifCompared(() => 'service / compared'), 'target', 'met']),
    line(['---', '---:', '---:', ...ifCompared(() => '---:'), '---:', ...ifCompared(() => '---:'), '---', '---']),
    row(
      `(i) deliveries/s, ${EVENTS} events x ${WEBHOOKS} webhooks committed at once`,
      rate,
      `${((serviceRate / bareRate) * 100).toFixed(0)}%`,
      `>= ${THROUGHPUT_TARGET * 100}% of bare sender`,
      serviceRate >= THROUGHPUT_TARGET * bareRate ? 'yes' : 'no',
    ),
    row('(i) CPU ms per 1,000 deliveries, sender processes', (m) => m.throughput.map((t) => t.senderCpu), '', '(reported)', ''),
    row('(i) CPU ms per 1,000 deliveries, PostgreSQL (the writer\'s and the senders\' backends)', (m) => m.throughput.map((t) => t.databaseCpu), '', '(reported)', ''),
    row(
      `(ii) p99 ms, commit to arrival, ${RATE} events/s x ${WEBHOOKS} = ${RATE * WEBHOOKS} deliveries/s for ${SECONDS} s`,
      (m) => m.latency.map((l) => l.p99),
      '',
      `service p99 < ${P99_TARGET_MS} ms`,
      serviceP99 < P99_TARGET_MS ? 'yes' : 'no',
    ),
    row('(ii) p50 ms', (m) => m.latency.map((l) => l.p50), '', '(reported)', ''),
    row('(ii) max ms', (m) => m.latency.map((l) => l.max), '', '(reported)', ''),
    row('(ii) events/s committed', (m) => m.latency.map((l) => l.eventsPerSecond), '', `${RATE}`, ''),
    line(['repeated arrivals (at-least-once)', String(duplicates), '', ...ifCompared(() => ''), '', ...ifCompared(() => ''), '(reported)', '']),
    ...(incomplete ? ['', 'Some deliveries did not arrive within the wait (5 minutes, 2 for latency): the rates above count those that did.'] : []),
  ].join('\n');
}

async function main(): Promise<void> {
  mkdirSync(LOG_DIR, { recursive: true });
  const receiver: HttpsReceiver = await startHttpsReceiver();
  receiver.respond((request, res) => {
    res.writeHead(200).end('ok');
    const key = `${request.url} ${String(request.headers['x-webhook-event-id'])}`;
    if (seen.has(key)) {
      duplicates += 1;
      return;
    }
    seen.add(key);
    if (!tally || !request.url.startsWith(tally.pathPrefix)) return;
    tally.arrived += 1;
    if (tally.latencies) {
      const { created_at: createdAt } = JSON.parse(request.body) as { created_at: string };
      tally.latencies.push(Date.now() - Date.parse(createdAt));
    }
  });
  // The receiver keeps every request it gets; the benchmark only needs the first arrival of each.
  const trim = setInterval(() => receiver.received.splice(0), 1000);

  const serviceEnv = envOf(SERVICE_DATABASE);
  const bareEnv = envOf(BARE_DATABASE);
  const comparedEnv = envOf(COMPARED_DATABASE);
  const workers: RunningWorker[] = [];
  const comparedWorkers: RunningWorker[] = [];
  const bareProcesses: ChildProcess[] = [];
  const admin = new Client({ connectionString: `${SERVER}/postgres`, application_name: BENCH_APPLICATION });
  await admin.connect();
  let output = '';
  try {
    // Each database is created and migrated by the API's start, registered through it, and the API stopped:
    // only the senders run while measuring.
    const owners: { ownerId: string; webhookIds: string[] }[] = [];
    const setups: [NodeJS.ProcessEnv, string][] = [
      [serviceEnv, '/service-'],
      [bareEnv, '/bare-'],
    ];
    if (COMPARED_DIST !== undefined) setups.push([comparedEnv, '/compared-']);
    for (const [env, pathPrefix] of setups) {
      const api = await startBuiltApi(env);
      try {
        owners.push(await registerOwner(api, env.DATABASE_URL ?? '', receiver, pathPrefix));
      } finally {
        await api.stop();
      }
    }
    for (let index = 0; index < PROCESSES; index++) {
      workers.push(await startBuiltWorker({ ...serviceEnv, NODE_EXTRA_CA_CERTS: receiver.certFile }));
      bareProcesses.push(await startBareSender({ ...bareEnv, NODE_EXTRA_CA_CERTS: receiver.certFile }, index));
      if (COMPARED_DIST !== undefined) {
        const entry = join(COMPARED_DIST, 'apps/worker/src/main.js');
        comparedWorkers.push(await startBuiltWorker({ ...comparedEnv, NODE_EXTRA_CA_CERTS: receiver.certFile }, { entry, node: COMPARED_NODE }));
      }
    }
    const senders = [
      serviceSender('service', '/service-', SERVICE_DATABASE, owners[0].ownerId, owners[0].webhookIds, workers),
      bareSender(BARE_DATABASE, owners[1].ownerId, owners[1].webhookIds, bareProcesses),
      ...(COMPARED_DIST === undefined
        ? []
        : [serviceSender('compared build', '/compared-', COMPARED_DATABASE, owners[2].ownerId, owners[2].webhookIds, comparedWorkers)]),
    ];
    const measured = new Map<Sender, Measured>(senders.map((sender) => [sender, { throughput: [], latency: [] }]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? senders : [...senders].reverse();
      for (const sender of order) {
        const results = measured.get(sender) as Measured;
        const rate = await throughput(admin, sender);
        results.throughput.push(rate);
        const lag = await latency(sender);
        results.latency.push(lag);
        process.stdout.write(
          `round ${round + 1}, ${sender.name}: ${rate.delivered} deliveries in ${rate.seconds.toFixed(1)} s, ${fmt(rate.rate)}/s ` +
            `(CPU per 1,000: ${fmt(rate.senderCpu)} ms senders, ${fmt(rate.databaseCpu)} ms PostgreSQL); ` +
            `${fmt(lag.eventsPerSecond)} events/s: ${lag.arrived} of ${lag.expected}, p50 ${fmt(lag.p50)} ms, p99 ${fmt(lag.p99)} ms, max ${fmt(lag.max)} ms\n`,
        );
      }
    }
    output = table(senders, measured);
  } finally {
    clearInterval(trim);
    await Promise.all([...[...workers, ...comparedWorkers].map((worker) => worker.terminate()), ...bareProcesses.map(stopProcess)]);
    await receiver.close();
    for (const database of [SERVICE_DATABASE, BARE_DATABASE, COMPARED_DATABASE]) {
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await deleteRedisKeys(REDIS_URL, database);
    }
    await admin.end();
  }
  writeFileSync(`${LOG_DIR}/delivery-results.md`, `${output}\n`);
  process.stdout.write(`\n${output}\n`);
}

main().catch((error: Error) => {
  process.stderr.write(`delivery benchmark failed: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
