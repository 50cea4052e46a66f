/**
 * The soak benchmark (`BENCH_SCENARIOS=soak npm run bench`): the built API (with the Node flags of
 * `npm run start:api`) and one built worker on a scratch database and Redis prefix, a local HTTPS
 * receiver (self-signed, trusted through NODE_EXTRA_CA_CERTS) and one webhook for
 * `resource.created`, under BENCH_SOAK_MINUTES (10) of mixed load at BENCH_SOAK_RATE requests a
 * second (300): reads by id, list pages (first and by cursor) and creates, each create a webhook
 * delivery, with logins one after another, BENCH_SOAK_LOGIN_MS (1,000) apart, whose access token
 * the following requests carry, as clients that sign in again do. After each minute it prints the
 * resident set and heap of the API and of the worker, and at the end how much the heap grew after
 * the warm-up (BENCH_SOAK_WARMUP_MINUTES, 2).
 *
 * Nothing forces a collection. heapUsed read from outside swings with the young generation and
 * with garbage the old generation has not collected yet, so the heap that is judged is the one V8
 * reports after each of its own major collections (`--trace-gc`, which only prints); the lowest
 * read of each minute is shown beside it. Everything it creates (database, Redis keys, processes,
 * certificate) is removed at the end; the tables are also written to .bench/results-soak.md.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { HttpsReceiver, startHttpsReceiver } from '@app/testing/https-receiver';
import { deleteRedisKeys } from '@app/testing/test-environment';
import { API_NODE_FLAGS, BENCH_DATABASE_SERVER, BENCH_REDIS_URL, benchServiceEnv } from './bench-service-env';
import { median, MemorySampler, MemorySummary, mib, prometheusHeapUsed, summarizeMemory } from './process-memory';

const RUN = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const DATABASE = `rms_bench_soak_${RUN}`;
const MINUTES = Math.max(2, Number(process.env.BENCH_SOAK_MINUTES ?? 10));
/** At least one measured minute after the warm-up, whatever is asked. */
const WARM_UP_MINUTES = Math.min(MINUTES - 1, Math.max(1, Number(process.env.BENCH_SOAK_WARMUP_MINUTES ?? 2)));
const RATE = Number(process.env.BENCH_SOAK_RATE ?? 300);
const LOGIN_INTERVAL_MS = Number(process.env.BENCH_SOAK_LOGIN_MS ?? 1_000);
/** Beside the API benchmark's ports (BENCH_PORT and the eight after it) and the scale benchmark's (20 on). */
const FIRST_PORT = Number(process.env.BENCH_PORT ?? 3900) + 40;
const PORTS = { api: FIRST_PORT, workerMetrics: FIRST_PORT + 1 };
const API_URL = `http://127.0.0.1:${PORTS.api}`;
const SEEDED = 10_000;
const CONNECTIONS = 10;
const SAMPLE_INTERVAL_MS = 1_000;
const HEAP_GROWTH_TARGET = 0.05;
/** How long the worker may take, after the load, to deliver what is left. */
const DRAIN_TIMEOUT_MS = 120_000;
const LOG_DIR = '.bench';
/** Prints a line per collection and changes nothing else: the one flag the soak adds to how the processes run. */
const GC_TRACE_FLAG = '--trace-gc';

const serviceEnv: NodeJS.ProcessEnv = {
  ...process.env,
  ...benchServiceEnv(DATABASE),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
};

interface ApiAnswer {
  data: { id: string; access_token: string };
  meta: { cursor: { next: string } };
}

async function call(method: string, path: string, body?: unknown, token?: string): Promise<ApiAnswer> {
  const response = await fetch(`${API_URL}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as ApiAnswer;
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/** V8's line for a major collection: `... ms: Mark-Compact 133.7 (218.4) -> 17.1 (145.9) MB, ...` (MB of 2^20 bytes). */
const MAJOR_COLLECTION = /: Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \(/;

/** A built process of the soak: its output goes to `.bench/soak-<name>.log`, its major collections are kept. */
class SoakProcess {
  /** Heap after each major collection, with the time it was printed. */
  readonly majorCollections: Array<{ at: number; heapBytes: number }> = [];
  readonly flags: string[];
  private readonly child: ChildProcess;
  private readonly lineWatchers: Array<(line: string) => void> = [];

  constructor(name: string, flags: string[], script: string, env: NodeJS.ProcessEnv) {
    this.flags = [...flags, GC_TRACE_FLAG];
    const log = createWriteStream(`${LOG_DIR}/soak-${name}.log`);
    this.child = spawn(process.execPath, [...this.flags, script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stderr?.pipe(log, { end: false });
    let partial = '';
    this.child.stdout?.on('data', (chunk: Buffer) => {
      log.write(chunk);
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const collected = MAJOR_COLLECTION.exec(line);
        if (collected) this.majorCollections.push({ at: Date.now(), heapBytes: Number(collected[1]) * 2 ** 20 });
        for (const watch of this.lineWatchers) watch(line);
      }
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** Resolves once the process prints a line containing `text`. */
  printed(text: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${text}" within ${timeoutMs} ms`)), timeoutMs);
      this.child.once('exit', (code) => reject(new Error(`exited with ${code} before printing "${text}"`)));
      this.lineWatchers.push((line) => {
        if (!line.includes(text)) return;
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The heap after the last major collection up to `time`; undefined before the first. */
  heapAfterMajorCollection(time: number): number | undefined {
    return this.majorCollections.filter((collection) => collection.at <= time).pop()?.heapBytes;
  }

  majorCollectionsBetween(from: number, to: number): number {
    return this.majorCollections.filter((collection) => collection.at >= from && collection.at < to).length;
  }

  /** SIGTERM; a production API keeps serving SHUTDOWN_DELAY_MS after it, and nothing is left to drain here. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    const killLater = setTimeout(() => this.child.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(killLater);
  }
}

/** The owner's resources, one millisecond apart, as the API benchmark seeds them; answers their ids. */
async function seed(db: Client, ownerId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO resources (id, owner_id, name, description, type, status, metadata, tags, created_at, updated_at)
     SELECT 'res_' || upper(lpad(to_hex(n), 26, '0')), $1, 'Resource ' || n, 'Seeded for the soak',
            'standard', 'active', jsonb_build_object('n', n), '["bench"]'::jsonb,
            now() - ($2 - n) * interval '1 millisecond', now() - ($2 - n) * interval '1 millisecond'
     FROM generate_series(1, $2) AS n
     RETURNING id`,
    [ownerId, SEEDED],
  );
  await db.query('VACUUM ANALYZE resources');
  return rows.map((row) => row.id);
}

/** The memory of one process over one minute. */
interface MinuteMemory {
  reads?: MemorySummary;
  /** After the last major collection by the end of the minute. */
  afterMajorCollection?: number;
  majorCollections: number;
}

/** What one minute of load came to. */
interface Minute {
  minute: number;
  rps: number;
  p99: number;
  non2xx: number;
  creates: number;
  logins: number;
  loginFailures: number;
  deliveries: number;
  api: MinuteMemory;
  worker: MinuteMemory;
}

/**
 * The requests each connection sends in turn: three reads by id, a first page, a page by cursor and
 * a create, so 50% by id, 33% lists, 17% creates. `authorization()` is the latest login's token.
 */
function mixedRequests(ids: string[], cursor: string, authorization: () => string): autocannon.Request[] {
  let next = 0;
  const withToken =
    (path: () => string) =>
    (request: autocannon.Request): autocannon.Request => ({
      ...request,
      path: path(),
      headers: { ...request.headers, authorization: authorization() },
    });
  const byId = (): string => `/v2/resources/${ids[next++ % ids.length]}`;
  const body = JSON.stringify({ name: 'Soak resource', type: 'standard', metadata: { source: 'soak' }, tags: ['soak'] });
  return [
    { method: 'GET', setupRequest: withToken(byId) },
    { method: 'GET', setupRequest: withToken(byId) },
    { method: 'GET', setupRequest: withToken(byId) },
    { method: 'GET', setupRequest: withToken(() => '/v2/resources?limit=20') },
    { method: 'GET', setupRequest: withToken(() => `/v2/resources?limit=20&cursor=${cursor}`) },
    { method: 'POST', body, setupRequest: withToken(() => '/v2/resources') },
  ];
}

const fmt = (value: number): string => value.toFixed(0);
const rssCell = ({ reads }: MinuteMemory): string => (reads ? `${mib(reads.rssPeak)} / ${mib(reads.rssMedian)}` : '');
const heapCell = ({ reads }: MinuteMemory): string =>
  reads ? `${mib(reads.heapMin)} / ${mib(reads.heapMedian)} / ${mib(reads.heapPeak)}` : '';
const afterCollectionCell = ({ afterMajorCollection, majorCollections }: MinuteMemory): string =>
  afterMajorCollection === undefined ? `(${majorCollections})` : `${mib(afterMajorCollection)} (${majorCollections})`;

const MINUTE_HEADER = [
  '| minute | phase | req/s | p99 ms | non-2xx | creates | logins | deliveries ' +
    '| API RSS peak / median | API heap lowest / median / peak read | API heap after major GC (GCs) ' +
    '| worker RSS peak / median | worker heap lowest / median / peak read | worker heap after major GC (GCs) |',
  '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
].join('\n');

function minuteLine(m: Minute): string {
  const logins = `${m.logins}${m.loginFailures > 0 ? ` (${m.loginFailures} failed)` : ''}`;
  const phase = m.minute <= WARM_UP_MINUTES ? 'warm-up' : 'measured';
  return (
    `| ${m.minute} | ${phase} | ${fmt(m.rps)} | ${fmt(m.p99)} | ${m.non2xx} | ${m.creates} | ${logins} | ${m.deliveries} ` +
    `| ${rssCell(m.api)} | ${heapCell(m.api)} | ${afterCollectionCell(m.api)} ` +
    `| ${rssCell(m.worker)} | ${heapCell(m.worker)} | ${afterCollectionCell(m.worker)} |`
  );
}

/** Least-squares slope of the values against their index, per step; undefined for fewer than two. */
function slope(values: number[]): number | undefined {
  const n = values.length;
  if (n < 2) return undefined;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((sum, value) => sum + value, 0) / n;
  const covariance = values.reduce((sum, value, x) => sum + (x - meanX) * (value - meanY), 0);
  const variance = values.reduce((sum, _value, x) => sum + (x - meanX) ** 2, 0);
  return covariance / variance;
}

/** A figure of one minute's memory, and whether the heap target is judged on it. */
interface Figure {
  name: string;
  value: (memory: MinuteMemory) => number | undefined;
  judged: boolean;
}

const FIGURES: Figure[] = [
  { name: 'heap after major GC', value: (memory) => memory.afterMajorCollection, judged: true },
  { name: 'heap (lowest read)', value: (memory) => memory.reads?.heapMin, judged: false },
  { name: 'RSS (median read)', value: (memory) => memory.reads?.rssMedian, judged: false },
];

/** Each figure at the end of the warm-up against the last minute, and its slope over the minutes after the warm-up. */
function growthTable(minutes: Minute[]): string {
  const warmedUp = minutes[WARM_UP_MINUTES - 1];
  const measured = minutes.slice(WARM_UP_MINUTES);
  const last = minutes[minutes.length - 1];
  const lines = [
    `| process | figure | end of warm-up (minute ${WARM_UP_MINUTES}) MiB | last minute (${last.minute}) MiB | growth | slope after warm-up, MiB/min | target | met |`,
    '|---|---|---:|---:|---:|---:|---|---|',
  ];
  const processes: Array<[string, (m: Minute) => MinuteMemory]> = [
    ['API', (m) => m.api],
    ['worker', (m) => m.worker],
  ];
  for (const [name, memoryOf] of processes) {
    for (const { name: figure, value, judged } of FIGURES) {
      const before = value(memoryOf(warmedUp));
      const after = value(memoryOf(last));
      if (before === undefined || after === undefined) {
        lines.push(`| ${name} | ${figure} | ${before === undefined ? 'none yet' : mib(before)} | ${after === undefined ? 'none' : mib(after)} | | | | |`);
        continue;
      }
      const growth = after / before - 1;
      const perMinute = slope(measured.flatMap((m) => value(memoryOf(m)) ?? []));
      const target = judged ? `< ${HEAP_GROWTH_TARGET * 100}%` : '(reported)';
      const pass = !judged || growth < HEAP_GROWTH_TARGET;
      lines.push(
        `| ${name} | ${figure} | ${mib(before)} | ${mib(after)} | ${(growth * 100).toFixed(1)}% | ${
          perMinute === undefined ? 'n/a' : (perMinute / 2 ** 20).toFixed(2)
        } | ${target} | ${pass ? 'yes' : 'no'} |`,
      );
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  mkdirSync(LOG_DIR, { recursive: true });
  const receiver: HttpsReceiver = await startHttpsReceiver();
  const arrived = new Set<string>();
  let repeated = 0;
  receiver.respond((request, res) => {
    res.writeHead(200).end('ok');
    const eventId = String(request.headers['x-webhook-event-id']);
    if (arrived.has(eventId)) repeated += 1;
    else arrived.add(eventId);
  });
  // The receiver keeps every request it gets; the soak counts them by event id instead.
  const trim = setInterval(() => receiver.received.splice(0), 1_000);

  const db = new Client({ connectionString: serviceEnv.DATABASE_URL });
  let api: SoakProcess | undefined;
  let worker: SoakProcess | undefined;
  try {
    const prepared = spawnSync(process.execPath, ['dist/apps/api/src/cli.js', 'db:prepare'], { env: serviceEnv, stdio: 'inherit' });
    if (prepared.status !== 0) throw new Error('db:prepare failed');
    await db.connect();
    api = new SoakProcess('api', API_NODE_FLAGS, 'dist/apps/api/src/main.js', { ...serviceEnv, PORT: String(PORTS.api) });
    if (!(await until(async () => (await fetch(`${API_URL}/health/ready`).catch(() => undefined))?.status === 200, 60_000))) {
      throw new Error('the API did not become ready');
    }
    // As `npm run start:worker` runs it: no flags of its own.
    worker = new SoakProcess('worker', [], 'dist/apps/worker/src/main.js', {
      ...serviceEnv,
      LOG_FORMAT: 'json',
      NODE_EXTRA_CA_CERTS: receiver.certFile,
      WORKER_METRICS_PORT: String(PORTS.workerMetrics),
    });
    await worker.printed('"msg":"Worker ready"', 60_000);

    const credentials = { email: `soak_${RUN}@example.com`, username: `soak_${RUN}`, password: 'benchmark-password' };
    const user = await call('POST', '/v2/auth/register', credentials);
    await db.query(`UPDATE users SET plan = 'enterprise' WHERE id = $1`, [user.data.id]);
    const logIn = async (): Promise<string> =>
      (await call('POST', '/v2/auth/login', { email: credentials.email, password: credentials.password })).data.access_token;
    let token = await logIn();
    await call('POST', '/v2/webhooks', { url: `https://127.0.0.1:${receiver.port}/soak`, events: ['resource.created'] }, token);
    const ids = await seed(db, user.data.id);
    const cursor = (await call('GET', '/v2/resources?limit=20', undefined, token)).meta.cursor.next;

    const soaked = [api, worker];
    const probes = [
      { pid: api.pid, heapUsed: prometheusHeapUsed(`${API_URL}/metrics`) },
      { pid: worker.pid, heapUsed: prometheusHeapUsed(`http://127.0.0.1:${PORTS.workerMetrics}/metrics`) },
    ];
    const header =
      `Soak: ${MINUTES} minutes at ${RATE} req/s over ${CONNECTIONS} connections (50% by id, 33% lists, 17% creates, each ` +
      `create one webhook delivery), logins one at a time ${LOGIN_INTERVAL_MS} ms apart, whose token the requests carry; the ` +
      `first ${WARM_UP_MINUTES} minute(s) are the warm-up. API flags: ${api.flags.join(' ')}; worker: ${worker.flags.join(' ')} ` +
      `(${GC_TRACE_FLAG} only prints). Memory in MiB, read every second: RSS from /proc, heapUsed from each process's /metrics. ` +
      '"Heap after major GC" is what V8 printed after the last of its own Mark-Compacts by the end of the minute, with how ' +
      'many ran in the minute; no collection is forced.';
    process.stdout.write(`${header}\n\n${MINUTE_HEADER}\n`);

    let logins = 0;
    let loginFailures = 0;
    let loggingIn = true;
    const loginLoop = (async () => {
      while (loggingIn) {
        await new Promise((resolve) => setTimeout(resolve, LOGIN_INTERVAL_MS));
        if (!loggingIn) break;
        try {
          token = await logIn();
          logins += 1;
        } catch {
          loginFailures += 1;
        }
      }
    })();

    const requests = mixedRequests(ids, cursor, () => `Bearer ${token}`);
    const minutes: Minute[] = [];
    for (let minute = 1; minute <= MINUTES; minute++) {
      const [loginsBefore, failuresBefore, arrivedBefore, started] = [logins, loginFailures, arrived.size, Date.now()];
      const sampler = new MemorySampler(probes, SAMPLE_INTERVAL_MS).start();
      const result = await autocannon({
        url: API_URL,
        connections: CONNECTIONS,
        overallRate: RATE,
        duration: 60,
        headers: { 'content-type': 'application/json' },
        requests,
      });
      const reads = await sampler.stop();
      const ended = Date.now();
      const [apiMemory, workerMemory] = soaked.map(
        (soakProcess, index): MinuteMemory => ({
          reads: summarizeMemory(reads[index]),
          afterMajorCollection: soakProcess.heapAfterMajorCollection(ended),
          majorCollections: soakProcess.majorCollectionsBetween(started, ended),
        }),
      );
      const row: Minute = {
        minute,
        rps: result.requests.average,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        creates: result.statusCodeStats?.['201']?.count ?? 0,
        logins: logins - loginsBefore,
        loginFailures: loginFailures - failuresBefore,
        deliveries: arrived.size - arrivedBefore,
        api: apiMemory,
        worker: workerMemory,
      };
      minutes.push(row);
      process.stdout.write(`${minuteLine(row)}\n`);
    }
    loggingIn = false;
    await loginLoop;

    const { rows } = await db.query<{ count: string }>(`SELECT count(*) FROM events WHERE type = 'resource.created'`);
    const events = Number(rows[0].count);
    const drained = await until(() => arrived.size >= events, DRAIN_TIMEOUT_MS);
    const delivery =
      `Deliveries: ${arrived.size} of ${events} resource.created events arrived` +
      `${drained ? '' : ` (stopped waiting after ${DRAIN_TIMEOUT_MS / 1000} s)`}, ${repeated} repeated arrivals.`;
    const summary = [`Median ${fmt(median(minutes.map((m) => m.rps)))} req/s a minute. ${delivery}`, '', growthTable(minutes)].join('\n');
    writeFileSync(`${LOG_DIR}/results-soak.md`, `${[header, '', MINUTE_HEADER, ...minutes.map(minuteLine), '', summary].join('\n')}\n`);
    process.stdout.write(`\n${summary}\n\n`);
  } finally {
    clearInterval(trim);
    await worker?.stop();
    await api?.stop();
    await db.end().catch(() => undefined);
    await receiver.close();
    const admin = new Client({ connectionString: `${BENCH_DATABASE_SERVER}/postgres` });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
    await admin.end();
    await deleteRedisKeys(BENCH_REDIS_URL, DATABASE);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`soak benchmark failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
