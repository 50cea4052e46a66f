/**
 * `npm run bench`: starts the built service on a scratch database seeded with 100,000
 * resources, measures each route with autocannon beside a bare Nest app (the floor) and a bare
 * `pg` server (the baseline) answering the same SQL, then the cost of each credential kind, of
 * the rate-limit check and of tracing, and prints one table, then the memory (resident set and
 * V8 heap) of each process during the measured loads. Every scenario is measured in BENCH_ROUNDS
 * alternating rounds and reported as the median with its range. Everything it creates
 * (database, Redis keys, processes) is removed at the end.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { deleteRedisKeys } from '@app/testing/test-environment';
import { Client } from 'pg';
import { API_NODE_FLAGS, apiNodeFlagsOf, BENCH_DATABASE_SERVER, BENCH_REDIS_URL, benchServiceEnv, tracingEnv } from './bench-service-env';
import {
  benchRouteHeapUsed,
  median,
  MemoryProbe,
  MemorySample,
  MemorySampler,
  MemorySummary,
  mib,
  nodeFlagsOf,
  prometheusHeapUsed,
  summarizeMemory,
} from './process-memory';
import { cpuPerRequest, cpuTimeOf, CpuTime } from './process-cpu';
import { waitFor } from './wait-for-service';
import { seedResources } from './seed-resources';

const RUN = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const DATABASE = `rms_bench_${RUN}`;
const SERVER = BENCH_DATABASE_SERVER;
const REDIS_URL = BENCH_REDIS_URL;
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const SEEDED = 100_000;
const FIRST_PORT = Number(process.env.BENCH_PORT ?? 3900);
const PORTS = {
  api: FIRST_PORT,
  baseline: FIRST_PORT + 1,
  floor: FIRST_PORT + 2,
  unauthenticated: FIRST_PORT + 3,
  unlimited: FIRST_PORT + 4,
  variant: FIRST_PORT + 5,
  otlpSink: FIRST_PORT + 6,
  tracedAll: FIRST_PORT + 7,
  tracedTenth: FIRST_PORT + 8,
  compared: FIRST_PORT + 9,
  twin: FIRST_PORT + 10,
  floorCounted: FIRST_PORT + 11,
  floorTracedAll: FIRST_PORT + 12,
  floorTracedTenth: FIRST_PORT + 13,
  floorMember: FIRST_PORT + 14,
};
/**
 * Another build's `dist/` (an earlier commit's worktree, say), to compare with this one instead of
 * running the scenarios: on this noisy machine the way to see a change of a few percent.
 */
const COMPARED_DIST = process.env.BENCH_COMPARE_DIST;
/**
 * The row kinds the comparison measures, in this order whatever `BENCH_COMPARE_ROWS` (a comma list,
 * all five by default) names: by id, cursor page 1, a cursor 90,000 deep, then the writes (the POST
 * row, a bulk create of 100), so that the reads never see the rows they write.
 */
const COMPARED_ROW_KINDS = ['by-id', 'list', 'deep', 'post', 'bulk'] as const;
type ComparedRowKind = (typeof COMPARED_ROW_KINDS)[number];
const isComparedRowKind = (name: string): name is ComparedRowKind => (COMPARED_ROW_KINDS as readonly string[]).includes(name);

function comparedRowKinds(): ComparedRowKind[] {
  const named = (process.env.BENCH_COMPARE_ROWS ?? COMPARED_ROW_KINDS.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = named.filter((name) => !isComparedRowKind(name));
  if (unknown.length > 0 || named.length === 0) {
    throw new Error(`BENCH_COMPARE_ROWS "${named.join(',')}": name some of ${COMPARED_ROW_KINDS.join(', ')}`);
  }
  return COMPARED_ROW_KINDS.filter((kind) => named.includes(kind));
}
/** The Node binary the compared build runs on (this one's by default): "this build on this runtime against that build on that one". */
const COMPARED_NODE = process.env.BENCH_COMPARE_NODE ?? process.execPath;
/** Only the tracing rows (`BENCH_SCENARIOS=tracing`), with an A/A row: what tracing costs, without the rest's half hour. */
const TRACING_ONLY = process.env.BENCH_TRACING_ONLY === 'true';
/** Only the credential rows (`BENCH_SCENARIOS=credentials`): what authentication and the rate limit cost. */
const CREDENTIALS_ONLY = process.env.BENCH_CREDENTIALS_ONLY === 'true';
/** Only the rows of a member of three organizations (`BENCH_SCENARIOS=members`), beside the floor reading as that member. */
const MEMBERS_ONLY = process.env.BENCH_MEMBERS_ONLY === 'true';
const LOG_DIR = '.bench';
/** Every read row's target: this share of the floor's req/s (docs/performance.md). */
const READ_FLOOR_SHARE = 0.85;
/** What authentication and the rate limit together may cost a read by id, against the same app without them. */
const CREDENTIAL_COST_LIMIT = 0.1;

const serviceEnv: NodeJS.ProcessEnv = { ...process.env, ...benchServiceEnv(DATABASE) };

const children: ChildProcess[] = [];

/** How each process is read while it is measured, by the port it serves. */
const memoryProbes = new Map<number, MemoryProbe>();
const MEMORY_SAMPLE_INTERVAL_MS = 500;

/** How a process exposes its heap: the service's apps through Prometheus, the bare servers through a bench-only route. */
type HeapSource = 'metrics' | 'bench-route';

function startProcess(name: string, args: string[], env: NodeJS.ProcessEnv, heapSource?: HeapSource, node = process.execPath): ChildProcess {
  const log = openSync(`${LOG_DIR}/${name}.log`, 'w');
  const child = spawn(node, args, { env, stdio: ['ignore', log, log] });
  children.push(child);
  const port = Number(env.PORT);
  if (heapSource !== undefined && child.pid !== undefined) {
    const origin = `http://127.0.0.1:${port}`;
    const heapUsed = heapSource === 'metrics' ? prometheusHeapUsed(`${origin}/metrics`) : benchRouteHeapUsed(origin);
    memoryProbes.set(port, { pid: child.pid, heapUsed });
  }
  return child;
}

/**
 * The floor, the baseline and the variants run compiled, as the service does: under ts-node
 * every process also loads Node's `domain` module, which slows every event emitted. All of them
 * run with the V8 flags the service runs with, so that the comparison is of code alone.
 */
const compiled = (name: string): string[] => [...API_NODE_FLAGS, join(__dirname, `${name}.js`)];

/** The parts of the API's answers the benchmark reads. */
interface ApiAnswer {
  data: { id: string; access_token: string; key: string };
  meta: { cursor: { next: string } };
}

async function call(port: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return { json: (text ? JSON.parse(text) : {}) as ApiAnswer, headers: response.headers };
}

interface Measured {
  rps: number;
  p99: number;
  non2xx: number;
  requests: number;
}

/**
 * The rounds of one target: medians, the range of req/s, every non-2xx answer, and its process's
 * memory and CPU time per request meanwhile (whether a slower process works more or waits more).
 */
interface Summary extends Omit<Measured, 'requests'> {
  rpsMin: number;
  rpsMax: number;
  memory?: MemorySummary;
  cpu?: CpuTime;
}

interface Load {
  method?: 'GET' | 'POST';
  paths: string[];
  body?: string;
  headers?: Record<string, string>;
  connections?: number;
}

/** A load against one process. */
interface Target {
  port: number;
  load: Load;
}

/**
 * Seconds of the same load before each measurement. A process that sat idle while the others were
 * measured serves its first seconds slowly, whatever ran before: after 35 s idle, one-second slices
 * of the floor and of the API ran at 30-50%, then 60-80%, and reached their rate only in the fourth.
 */
const WARM_UP_SECONDS = 5;

async function load({ port, load }: Target, duration: number): Promise<Measured> {
  let next = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: load.connections ?? 10,
    duration,
    headers: { 'content-type': 'application/json', ...load.headers },
    requests: [
      {
        method: load.method ?? 'GET',
        body: load.body,
        setupRequest: (request) => ({ ...request, path: load.paths[next++ % load.paths.length] }),
      },
    ],
  });
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx, requests: result.requests.total };
}

/**
 * The targets measured in ROUNDS rounds that alternate between them, so that a slow moment of the
 * shared machine lands on all of them rather than on one. Each measurement follows its own
 * warm-up, and each round starts one target later, so that no target is always the first its
 * process serves after a pause. The memory of the measured process is read during each
 * measurement (not its warm-up).
 */
async function measureRounds(targets: Target[]): Promise<Summary[]> {
  const rounds: Measured[][] = targets.map(() => []);
  const memory: MemorySample[][] = targets.map(() => []);
  const cpu: CpuTime[][] = targets.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let step = 0; step < targets.length; step++) {
      const index = (round + step) % targets.length;
      await load(targets[index], WARM_UP_SECONDS);
      const probe = memoryProbes.get(targets[index].port);
      const sampler = probe && new MemorySampler([probe], MEMORY_SAMPLE_INTERVAL_MS).start();
      const cpuBefore = probe && cpuTimeOf(probe.pid);
      const measured = await load(targets[index], DURATION);
      const perRequest = probe && cpuPerRequest(cpuBefore, cpuTimeOf(probe.pid), measured.requests);
      rounds[index].push(measured);
      if (perRequest) cpu[index].push(perRequest);
      if (sampler) memory[index].push(...(await sampler.stop())[0]);
    }
  }
  return rounds.map((measured, index) => {
    const rps = measured.map((m) => m.rps);
    const perRequest = cpu[index];
    return {
      rps: median(rps),
      rpsMin: Math.min(...rps),
      rpsMax: Math.max(...rps),
      p99: median(measured.map((m) => m.p99)),
      non2xx: measured.reduce((sum, m) => sum + m.non2xx, 0),
      memory: summarizeMemory(memory[index]),
      cpu: perRequest.length > 0 ? { main: median(perRequest.map((c) => c.main)), all: median(perRequest.map((c) => c.all)) } : undefined,
    };
  });
}

/** Walks the listing 100 rows at a time to the cursor that starts after row `depth`. */
async function deepCursor(port: number, headers: Record<string, string>, depth: number): Promise<string> {
  let cursor = '';
  for (let seen = 0; seen < depth; seen += 100) {
    const page = await call(port, 'GET', `/v2/resources?limit=100${cursor ? `&cursor=${cursor}` : ''}`, undefined, headers);
    cursor = page.json.meta.cursor.next;
  }
  return cursor;
}

/** The baseline's own cursor format: the position of row `depth` in the default order. */
async function baselineCursor(db: Client, ownerId: string, depth: number): Promise<string> {
  const { rows } = await db.query<{ created_at: string; id: string }>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, id
     FROM resources WHERE owner_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
    [ownerId, depth - 1],
  );
  return Buffer.from(JSON.stringify([rows[0].created_at, rows[0].id])).toString('base64url');
}

/** The page of 20 after the listing's first 90,000 rows: the service's path with its signed cursor, and the bare servers' with theirs. */
async function deepCursorPaths(db: Client, ownerId: string, headers: Record<string, string>): Promise<{ service: string; floor: string }> {
  const [service, floor] = await Promise.all([deepCursor(PORTS.api, headers, 90_000), baselineCursor(db, ownerId, 90_000)]);
  return { service: `/v2/resources?limit=20&cursor=${service}`, floor: `/v2/resources?limit=20&cursor=${floor}` };
}

const resourceBody = (n: number) => ({
  name: `Benchmark resource ${n}`,
  description: 'Created by the benchmark',
  type: 'standard',
  metadata: { source: 'bench', n },
  tags: ['bench'],
});

/** The list's cursor page 1 and the creates, as the scenarios and the build comparison both send them. */
const listPage1 = (headers?: Record<string, string>): Load => ({ paths: ['/v2/resources?limit=20'], headers });
const BULK_BODY = JSON.stringify({ resources: Array.from({ length: 100 }, (_, n) => resourceBody(n)) });
/** A bulk create of 100, through 2 connections. */
const createHundred = (headers?: Record<string, string>): Load => ({ method: 'POST', paths: ['/v2/resources/bulk'], body: BULK_BODY, headers, connections: 2 });
const createOne = (headers?: Record<string, string>): Load => ({
  method: 'POST',
  paths: ['/v2/resources'],
  body: JSON.stringify(resourceBody(1)),
  headers,
});

interface Row {
  scenario: string;
  service: Summary;
  floor?: Summary;
  baseline?: Summary;
  target: string;
  pass: boolean;
  /** The memory target, on the row it is judged on (by id); the other rows report memory alone. */
  memoryTarget?: (service: MemorySummary, floor?: MemorySummary) => [string, boolean];
}

const fmt = (value: number): string => value.toFixed(0);
const rate = (summary?: Summary): string =>
  summary ? `${fmt(summary.rps)} (${fmt(summary.rpsMin)}-${fmt(summary.rpsMax)})` : '';
const ratio = (service: Summary, other?: Summary): string => (other ? `${((service.rps / other.rps) * 100).toFixed(0)}%` : '');
const p99 = (summary?: Summary): string => (summary ? fmt(summary.p99) : '');
/** CPU µs per request: the main thread, then all threads. */
const cpuOf = (summary?: Summary): string => (summary?.cpu ? `${fmt(summary.cpu.main)} / ${fmt(summary.cpu.all)}` : '');

function table(rows: Row[]): string {
  const lines = [
    `Medians of ${ROUNDS} alternating rounds of ${DURATION} s; req/s as median (lowest-highest); CPU as µs per request, main thread / all threads.`,
    '',
    '| scenario | service req/s | service p99 ms | service CPU | floor req/s | floor p99 ms | floor CPU | baseline req/s | baseline p99 ms | service / floor | service / baseline | target | met |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.scenario} | ${rate(row.service)} | ${p99(row.service)} | ${cpuOf(row.service)} | ${rate(row.floor)} | ${p99(row.floor)} | ${cpuOf(
        row.floor,
      )} | ${rate(row.baseline)} | ${p99(row.baseline)} | ${ratio(row.service, row.floor)} | ${ratio(row.service, row.baseline)} | ${row.target} | ${
        row.pass ? 'yes' : 'no'
      } |`,
    );
  }
  return lines.join('\n');
}

/** RSS as peak / median of the reads, heap as lowest / median / peak, in MiB. */
const rssOf = (memory?: MemorySummary): string => (memory ? `${mib(memory.rssPeak)} / ${mib(memory.rssMedian)}` : '');
const heapOf = (memory?: MemorySummary): string =>
  memory ? `${mib(memory.heapMin)} / ${mib(memory.heapMedian)} / ${mib(memory.heapPeak)}` : '';

/** The memory of the service, the floor and the baseline at rest, in that order. */
type IdleMemory = Array<MemorySummary | undefined>;

/** A few reads of processes just started, before they serve anything: what loading their code and starting cost. */
async function idleMemory(ports: number[]): Promise<IdleMemory> {
  const probes = ports.map((port) => {
    const probe = memoryProbes.get(port);
    if (!probe) throw new Error(`no process to read on port ${port}`);
    return probe;
  });
  const sampler = new MemorySampler(probes, MEMORY_SAMPLE_INTERVAL_MS).start();
  await new Promise((resolve) => setTimeout(resolve, 4 * MEMORY_SAMPLE_INTERVAL_MS));
  return (await sampler.stop()).map(summarizeMemory);
}

/** The memory of the processes during each measured scenario: every read of every round. */
function memoryTable(rows: Row[], idle: IdleMemory, flags: string): string {
  const lines = [
    `Memory during the measured loads (not the warm-ups), read every ${MEMORY_SAMPLE_INTERVAL_MS} ms, MiB: resident set from /proc`,
    `(peak / median), V8 heapUsed from each process (the service's /metrics, the bare servers' bench-only route; lowest / median /`,
    `peak: it includes the young generation's garbage, so the lowest read is the nearest to the live heap). Every process ran with`,
    `the service's Node flags (${flags}). The credential rows' service is the variant app of that row.`,
    '',
    '| scenario | service RSS | service heap | floor RSS | floor heap | baseline RSS | baseline heap | service RSS / floor RSS (medians) | target | met |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  const [idleService, idleFloor, idleBaseline] = idle;
  lines.push(
    `| just started, before any request | ${rssOf(idleService)} | ${heapOf(idleService)} | ${rssOf(idleFloor)} | ${heapOf(idleFloor)} | ${rssOf(
      idleBaseline,
    )} | ${heapOf(idleBaseline)} | ${
      idleService && idleFloor ? `${(idleService.rssMedian / idleFloor.rssMedian).toFixed(2)}x` : ''
    } | (reported) | yes |`,
  );
  for (const row of rows) {
    const service = row.service.memory;
    if (!service) continue;
    const floor = row.floor?.memory;
    const overFloor = floor ? `${(service.rssMedian / floor.rssMedian).toFixed(2)}x` : '';
    const [target, pass] = row.memoryTarget ? row.memoryTarget(service, floor) : ['(reported)', true];
    lines.push(
      `| ${row.scenario} | ${rssOf(service)} | ${heapOf(service)} | ${rssOf(floor)} | ${heapOf(floor)} | ${rssOf(
        row.baseline?.memory,
      )} | ${heapOf(row.baseline?.memory)} | ${overFloor} | ${target} | ${pass ? 'yes' : 'no'} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  mkdirSync(LOG_DIR, { recursive: true });
  const comparedRows = COMPARED_DIST === undefined ? [] : comparedRowKinds();
  const admin = new Client({ connectionString: `${SERVER}/postgres` });
  await admin.connect();
  const prepared = spawnSync(process.execPath, ['dist/apps/api/src/cli.js', 'db:prepare'], { env: serviceEnv, stdio: 'inherit' });
  if (prepared.status !== 0) throw new Error('db:prepare failed');
  const db = new Client({ connectionString: serviceEnv.DATABASE_URL });
  await db.connect();

  try {
    const api = startProcess('api', [...API_NODE_FLAGS, 'dist/apps/api/src/main.js'], { ...serviceEnv, PORT: String(PORTS.api) }, 'metrics');
    await waitFor(`http://127.0.0.1:${PORTS.api}/health/ready`);
    const [idleApi] = await idleMemory([PORTS.api]);

    const credentials = { email: `bench_${RUN}@example.com`, username: `bench_${RUN}`, password: 'benchmark-password' };
    const user = await call(PORTS.api, 'POST', '/v2/auth/register', credentials);
    const ownerId = user.json.data.id;
    await db.query(`UPDATE users SET plan = 'enterprise' WHERE id = $1`, [ownerId]);
    // An access token lasts 15 minutes, less than a whole run: each scenario logs in again.
    const jwt: Record<string, string> = {};
    const logIn = async (): Promise<void> => {
      const login = await call(PORTS.api, 'POST', '/v2/auth/login', { email: credentials.email, password: credentials.password });
      jwt.authorization = `Bearer ${login.json.data.access_token}`;
    };
    await logIn();
    const ids = await seedResources(db, ownerId, SEEDED);

    const fixedOwner = { ...serviceEnv, BENCH_OWNER_ID: ownerId };
    startProcess('baseline', compiled('baseline-server'), { ...fixedOwner, PORT: String(PORTS.baseline) }, 'bench-route');
    const floorProcess = startProcess('floor', compiled('nest-floor'), { ...fixedOwner, PORT: String(PORTS.floor) }, 'bench-route');
    await waitFor(`http://127.0.0.1:${PORTS.baseline}/`);
    await waitFor(`http://127.0.0.1:${PORTS.floor}/`);
    const flags = sameNodeFlags(api, floorProcess);
    const idle = [idleApi, ...(await idleMemory([PORTS.floor, PORTS.baseline]))];
    const byId = ids.map((id) => `/v2/resources/${id}`);
    if (COMPARED_DIST !== undefined) {
      const deepPaths = comparedRows.includes('deep') ? await deepCursorPaths(db, ownerId, jwt) : undefined;
      report(await buildComparison(COMPARED_DIST, comparedRows, { byId, deep: deepPaths }, jwt, logIn), idle, flags);
      return;
    }
    if (TRACING_ONLY) {
      report([await tracingCosts(byId, jwt, ownerId)], idle, flags);
      return;
    }
    if (CREDENTIALS_ONLY) {
      report([await credentialCosts(byId, ownerId, credentials)], idle, flags);
      return;
    }
    if (MEMBERS_ONLY) {
      report([await organizationMemberRows(db, jwt)], idle, flags);
      return;
    }
    const deep = await deepCursorPaths(db, ownerId, jwt);

    const floorTarget = (service: Summary, floor?: Summary): [string, boolean] => [
      `>= ${READ_FLOOR_SHARE * 100}% of floor req/s`,
      floor !== undefined && service.rps >= READ_FLOOR_SHARE * floor.rps,
    ];
    const scenarios: Array<{
      name: string;
      service: Load;
      floor?: Load;
      baseline: Load;
      target: (s: Summary, f: Summary | undefined, b: Summary) => [string, boolean];
      /** A row of its own for service / floor, where the scenario's own row compares with the baseline. */
      floorRow?: { name: string; target: (s: Summary, f: Summary) => [string, boolean] };
      memoryTarget?: Row['memoryTarget'];
    }> = [
      {
        name: 'GET /resources/{id}',
        service: { paths: byId, headers: jwt },
        floor: { paths: byId },
        baseline: { paths: byId },
        target: floorTarget,
        memoryTarget: (service, floor) => [
          'service RSS <= 1.3x floor RSS',
          floor !== undefined && service.rssMedian <= 1.3 * floor.rssMedian,
        ],
      },
      {
        name: 'GET /resources?limit=20 (cursor, page 1)',
        service: listPage1(jwt),
        floor: listPage1(),
        baseline: listPage1(),
        target: floorTarget,
      },
      {
        name: 'GET /resources?limit=20 (cursor, 90,000 deep)',
        service: { paths: [deep.service], headers: jwt },
        floor: { paths: [deep.floor] },
        baseline: { paths: [deep.floor] },
        target: floorTarget,
      },
      {
        name: 'GET /resources?per_page=20&page=4000 (offset)',
        service: { paths: ['/v2/resources?per_page=20&page=4000'], headers: jwt },
        floor: { paths: ['/v2/resources?per_page=20&page=4000'] },
        baseline: { paths: ['/v2/resources?per_page=20&page=4000'] },
        target: () => ['(reported)', true],
      },
      {
        name: 'POST /resources',
        service: createOne(jwt),
        floor: createOne(),
        baseline: createOne(),
        target: (s, _f, b) => ['>= 40% of baseline req/s', s.rps >= 0.4 * b.rps],
        floorRow: {
          name: 'POST /resources, service / floor',
          target: (s, f) => ['>= 80% of floor req/s', s.rps >= 0.8 * f.rps],
        },
      },
      {
        name: 'POST /resources/bulk (100 items, 2 connections)',
        service: createHundred(jwt),
        floor: createHundred(),
        baseline: createHundred(),
        target: (s) => ['p99 < 30 ms', s.p99 < 30],
        floorRow: {
          name: 'POST /resources/bulk (100 items, 2 connections), service / floor',
          target: () => ['(reported)', true],
        },
      },
    ];

    const rows: Row[] = [];
    for (const scenario of scenarios) {
      await logIn();
      const targets: Target[] = [
        { port: PORTS.api, load: scenario.service },
        { port: PORTS.baseline, load: scenario.baseline },
        ...(scenario.floor ? [{ port: PORTS.floor, load: scenario.floor }] : []),
      ];
      const [service, baseline, floor] = await measureRounds(targets);
      const [target, pass] = scenario.target(service, floor, baseline);
      const { floorRow, memoryTarget } = scenario;
      if (floorRow && floor) {
        rows.push({ scenario: scenario.name, service, baseline, target, pass });
        const [floorTargetText, floorPass] = floorRow.target(service, floor);
        rows.push({ scenario: floorRow.name, service, floor, target: floorTargetText, pass: floorPass });
      } else {
        rows.push({ scenario: scenario.name, service, floor, baseline, target, pass, memoryTarget });
      }
      process.stdout.write(`measured ${scenario.name}\n`);
    }
    const [page1, deepRow] = [rows[1], rows[2]];
    deepRow.target = `${deepRow.target}, p99 within 1.2x of page 1`;
    deepRow.pass &&= deepRow.service.p99 <= Math.max(1.2 * page1.service.p99, page1.service.p99 + 1);

    await logIn();
    rows.push(...(await organizationMemberRows(db, jwt)));
    rows.push(...(await credentialCosts(byId, ownerId, credentials)));
    await logIn();
    rows.push(...(await tracingCosts(byId, jwt, ownerId)));

    report([rows], idle, flags);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await db.end();
    await admin.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
    await admin.end();
    await deleteRedisKeys(REDIS_URL, DATABASE);
  }
}

/**
 * Prints the tables (one per group of rows, then the memory of all of them), writes them to
 * `.bench/results.md`, and lists every non-2xx answer seen.
 */
function report(tables: Row[][], idle: IdleMemory, flags: string): void {
  const rows = tables.flat();
  const output = [...tables.map(table), memoryTable(rows, idle, flags)].join('\n\n');
  const failures = rows
    .filter((row) => row.service.non2xx + (row.floor?.non2xx ?? 0) + (row.baseline?.non2xx ?? 0) > 0)
    .map(
      (row) =>
        `${row.scenario}: ${row.service.non2xx} non-2xx (floor ${row.floor?.non2xx ?? 0}, baseline ${row.baseline?.non2xx ?? 0})`,
    );
  writeFileSync(`${LOG_DIR}/results.md`, `${output}\n`);
  process.stdout.write(`\n${output}\n\n`);
  if (failures.length > 0) process.stdout.write(`non-2xx answers seen:\n${failures.join('\n')}\n`);
}

/**
 * The Node flags of the service and of the floor, which must be the same for their memory (and
 * their rates) to compare code alone: read back from the running processes, not from how they
 * were meant to start.
 */
function sameNodeFlags(api: ChildProcess, floor: ChildProcess): string {
  const [apiFlags, floorFlags] = [api, floor].map((child) => nodeFlagsOf(child.pid ?? 0).join(' '));
  if (apiFlags !== floorFlags) throw new Error(`the floor runs with "${floorFlags}", the service with "${apiFlags}"`);
  return apiFlags || 'none';
}

/**
 * A member of three organizations who sees the 100,000 seeded resources only through them
 * (docs/api.md#resource-access): cursor page 1 against a page 5,000 deep, which must cost about the
 * same, and page 1 beside the floor reading as the same member (its memberships, then the page
 * through them: the service's statements for that caller). Runs after the owner's scenarios, as it
 * spreads their resources over the organizations.
 */
async function organizationMemberRows(db: Client, ownerHeaders: Record<string, string>): Promise<Row[]> {
  const credentials = { email: `bench_member_${RUN}@example.com`, username: `bench_member_${RUN}`, password: 'benchmark-password' };
  const registered = await call(PORTS.api, 'POST', '/v2/auth/register', credentials);
  const memberId: string = registered.json.data.id;
  await db.query(`UPDATE users SET plan = 'enterprise' WHERE id = $1`, [memberId]);
  const organizations: string[] = [];
  for (let n = 0; n < 3; n++) {
    const created = await call(PORTS.api, 'POST', '/v2/organizations', { name: `Bench ${n}`, slug: `bench-${RUN}-${n}` }, ownerHeaders);
    const organizationId: string = created.json.data.id;
    organizations.push(organizationId);
    await call(PORTS.api, 'POST', `/v2/organizations/${organizationId}/members`, { user_id: memberId, role: 'member' }, ownerHeaders);
  }
  await db.query(`UPDATE resources SET organization_id = ($1::text[])[1 + abs(hashtext(id)) % 3]`, [organizations]);
  await db.query('ANALYZE resources');
  startProcess('floor-member', compiled('nest-floor'), { ...serviceEnv, PORT: String(PORTS.floorMember), BENCH_OWNER_ID: memberId }, 'bench-route');
  await waitFor(`http://127.0.0.1:${PORTS.floorMember}/`);
  const login = await call(PORTS.api, 'POST', '/v2/auth/login', { email: credentials.email, password: credentials.password });
  const headers = { authorization: `Bearer ${login.json.data.access_token}` };
  const deep = await deepCursor(PORTS.api, headers, 5_000);
  const [first, deeper, floor] = await measureRounds([
    { port: PORTS.api, load: { paths: ['/v2/resources?limit=20'], headers } },
    { port: PORTS.api, load: { paths: [`/v2/resources?limit=20&cursor=${deep}`], headers } },
    { port: PORTS.floorMember, load: listPage1() },
  ]);
  return [
    {
      scenario: 'GET /resources?limit=20 as a member of 3 organizations (cursor, page 1)',
      service: first,
      floor,
      target: `>= ${READ_FLOOR_SHARE * 100}% of floor req/s`,
      pass: first.rps >= READ_FLOOR_SHARE * floor.rps,
    },
    {
      scenario: 'GET /resources?limit=20 as a member of 3 organizations (cursor, 5,000 deep)',
      service: deeper,
      target: 'p99 within 1.2x of page 1',
      pass: deeper.p99 <= Math.max(1.2 * first.p99, first.p99 + 1),
    },
  ];
}

/** The ports of the floors counting each read in Redis started so far: the credential and tracing rows share the untraced one. */
const countedFloors = new Set<number>();

/**
 * The floor counting each read in Redis, on `port`, with `env` added (its tracing); started once,
 * ready when the promise settles.
 */
async function startCountedFloor(ownerId: string, port: number, env: NodeJS.ProcessEnv = {}): Promise<void> {
  if (!countedFloors.has(port)) {
    countedFloors.add(port);
    startProcess(
      `floor-counted-${port}`,
      compiled('nest-floor'),
      { ...serviceEnv, ...env, PORT: String(port), BENCH_OWNER_ID: ownerId, BENCH_FLOOR_REDIS_URL: serviceEnv.REDIS_URL },
      'bench-route',
    );
  }
  await waitFor(`http://127.0.0.1:${port}/`);
}

/**
 * GET /resources/{id} through the same app with each credential, with the rate-limit check
 * switched off, and with neither authentication nor rate limiting (a constant caller): three
 * processes side by side, measured in alternating rounds with the floor.
 */
async function credentialCosts(
  paths: string[],
  ownerId: string,
  credentials: { email: string; password: string },
): Promise<Row[]> {
  const modes: Array<[string, number]> = [
    ['unauthenticated', PORTS.unauthenticated],
    ['no-rate-limit', PORTS.unlimited],
    ['full', PORTS.variant],
  ];
  for (const [mode, port] of modes) {
    startProcess(
      `variant-${mode}`,
      compiled('api-variant'),
      { ...serviceEnv, PORT: String(port), BENCH_MODE: mode, BENCH_OWNER_ID: ownerId },
      'metrics',
    );
  }
  const countedFloor = startCountedFloor(ownerId, PORTS.floorCounted);
  for (const [, port] of modes) await waitFor(`http://127.0.0.1:${port}/health/live`);
  await countedFloor;

  const login = await call(PORTS.variant, 'POST', '/v2/auth/login', { email: credentials.email, password: credentials.password });
  const jwt = { authorization: `Bearer ${login.json.data.access_token}` };
  const key = await call(PORTS.variant, 'POST', '/v2/api-keys', { name: 'bench', scopes: ['read:resources'] }, jwt);
  const session = await call(PORTS.variant, 'POST', '/v2/session/login', { email: credentials.email, password: credentials.password });
  const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0];
  const kinds: Array<[string, Record<string, string>]> = [
    ['JWT', jwt],
    ['API key', { 'x-api-key': key.json.data.key }],
    ['session', { cookie }],
  ];
  const credentialed = [PORTS.unlimited, PORTS.variant].flatMap((port) =>
    kinds.map(([kind, headers]) => ({ kind, rateLimited: port === PORTS.variant, port, headers })),
  );
  const [unauthenticated, floor, floorCounted, ...measured] = await measureRounds([
    { port: PORTS.unauthenticated, load: { paths } },
    { port: PORTS.floor, load: { paths } },
    { port: PORTS.floorCounted, load: { paths } },
    ...credentialed.map(({ port, headers }) => ({ port, load: { paths, headers } })),
  ]);

  const rows: Row[] = [
    { scenario: 'GET /resources/{id}, no authentication, no rate limit', service: unauthenticated, floor, target: '(reference)', pass: true },
    {
      scenario: `GET /resources/{id}, the floor counting each read in Redis (one script call; cost ${((1 - floorCounted.rps / floor.rps) * 100).toFixed(0)}% against the floor)`,
      service: floorCounted,
      floor,
      target: '(the least a Redis round trip costs)',
      pass: true,
    },
  ];
  credentialed.forEach(({ kind, rateLimited }, index) => {
    const service = measured[index];
    const cost = 1 - service.rps / unauthenticated.rps;
    const overFloor = service.rps / floor.rps;
    const [target, pass] = !rateLimited
      ? ['(auth alone)', true]
      : [
          `auth + rate limit cost <= ${CREDENTIAL_COST_LIMIT * 100}%, >= ${READ_FLOOR_SHARE * 100}% of floor`,
          cost <= CREDENTIAL_COST_LIMIT && overFloor >= READ_FLOOR_SHARE,
        ];
    rows.push({
      scenario: `GET /resources/{id}, ${kind}${rateLimited ? ' + rate limit' : ''} (cost ${(cost * 100).toFixed(0)}%)`,
      service,
      floor,
      target,
      pass,
    });
  });
  return rows;
}

/**
 * GET /resources/{id} with tracing on, every request sampled and one in ten, beside the API with
 * it off (the process of the rows above): two more API processes, exporting OTLP to a sink that
 * discards it, measured in alternating rounds with it. Beside them, the floor counting each read in
 * Redis, untraced and recording the same three spans through the SDK at the same two ratios: what
 * the SDK alone costs a read, the least tracing can cost the service.
 */
async function tracingCosts(paths: string[], headers: Record<string, string>, ownerId: string): Promise<Row[]> {
  startProcess('otlp-sink', compiled('otlp-sink'), { ...serviceEnv, PORT: String(PORTS.otlpSink) });
  await waitFor(`http://127.0.0.1:${PORTS.otlpSink}/`);
  const sampled: Array<[share: string, port: number, floorPort: number, ratio: string]> = [
    ['100%', PORTS.tracedAll, PORTS.floorTracedAll, '1'],
    ['10%', PORTS.tracedTenth, PORTS.floorTracedTenth, '0.1'],
  ];
  for (const [, port, , ratio] of sampled) {
    startProcess(`api-tracing-${ratio}`, [...API_NODE_FLAGS, 'dist/apps/api/src/main.js'], { ...serviceEnv, ...tracingEnv(ratio, PORTS.otlpSink), PORT: String(port) }, 'metrics');
  }
  // Alone, the rows have room for a second process with tracing off: how far two identical
  // processes differ in this run, the noise the costs are read against.
  if (TRACING_ONLY) startProcess('api-twin', [...API_NODE_FLAGS, 'dist/apps/api/src/main.js'], { ...serviceEnv, PORT: String(PORTS.twin) }, 'metrics');
  await Promise.all([
    startCountedFloor(ownerId, PORTS.floorCounted),
    ...sampled.map(([, , floorPort, ratio]) => startCountedFloor(ownerId, floorPort, { ...tracingEnv(ratio, PORTS.otlpSink), BENCH_FLOOR_TRACING: 'true' })),
  ]);
  const ports = [PORTS.api, ...sampled.map(([, port]) => port), ...(TRACING_ONLY ? [PORTS.twin] : [])];
  for (const port of ports) await waitFor(`http://127.0.0.1:${port}/health/ready`);
  const floorPorts = [PORTS.floorCounted, ...sampled.map(([, , floorPort]) => floorPort)];
  const measured = await measureRounds([...ports.map((port) => ({ port, load: { paths, headers } })), ...floorPorts.map((port) => ({ port, load: { paths } }))]);
  const [off, ...traced] = measured.slice(0, sampled.length + 1);
  const twin = TRACING_ONLY ? measured[sampled.length + 1] : undefined;
  const [floorOff, ...floorTraced] = measured.slice(ports.length);
  const cost = (summary: Summary, reference = off): string => `${((1 - summary.rps / reference.rps) * 100).toFixed(0)}%`;
  return [
    { scenario: 'GET /resources/{id}, tracing off', service: off, target: '(reference)', pass: true },
    ...(twin ? [{ scenario: `GET /resources/{id}, tracing off, a second process (A/A: ${cost(twin)})`, service: twin, target: '(noise)', pass: true }] : []),
    ...sampled.map(([share], index) => ({
      scenario: `GET /resources/{id}, tracing on, ${share} sampled (cost ${cost(traced[index])})`,
      service: traced[index],
      target: '(reported)',
      pass: true,
    })),
    { scenario: 'GET /resources/{id}, the floor counting each read in Redis, tracing off', service: floorOff, target: '(reference of the floor rows)', pass: true },
    ...sampled.map(([share], index) => ({
      scenario: `GET /resources/{id}, the floor counting each read in Redis, its three spans through the SDK, ${share} sampled (cost ${cost(floorTraced[index], floorOff)})`,
      service: floorTraced[index],
      target: '(what the SDK alone costs)',
      pass: true,
    })),
  ];
}

/**
 * A read by id with a JWT and the rate limit, cursor page 1 of the list and a single create (each
 * as the scenarios send it), each kind of `kinds` measured on its own: through this build, through
 * a second process of this build (the A/A row: how far two identical processes differ in this run,
 * the noise every other difference is read against) and through the one in `dist` on
 * `COMPARED_NODE`, beside the floor, in the same alternating rounds. One table per kind. The other
 * build runs against this build's schema and seed, so it must share the schema (migrations are not
 * run for it), with the Node flags of its own `start:api` script.
 */
async function buildComparison(
  dist: string,
  kinds: ComparedRowKind[],
  paths: { byId: string[]; deep?: { service: string; floor: string } },
  headers: Record<string, string>,
  logIn: () => Promise<void>,
): Promise<Row[][]> {
  const comparedFlags = apiNodeFlagsOf(join(dist, '..', 'package.json'));
  startProcess('api-compared', [...comparedFlags, join(dist, 'apps/api/src/main.js')], { ...serviceEnv, PORT: String(PORTS.compared) }, 'metrics', COMPARED_NODE);
  startProcess('api-twin', [...API_NODE_FLAGS, 'dist/apps/api/src/main.js'], { ...serviceEnv, PORT: String(PORTS.twin) }, 'metrics');
  await waitFor(`http://127.0.0.1:${PORTS.compared}/health/ready`);
  await waitFor(`http://127.0.0.1:${PORTS.twin}/health/ready`);
  const runtime = (port: number): Promise<string> =>
    fetch(`http://127.0.0.1:${port}/metrics`)
      .then((response) => response.text())
      .then((metrics) => /^nodejs_version_info\{[^}]*version="(v[^"]+)"/m.exec(metrics)?.[1] ?? 'unknown');
  const [comparedRuntime, ownRuntime] = await Promise.all([runtime(PORTS.compared), runtime(PORTS.api)]);
  const change = (ours: Summary, theirs: Summary): string => {
    const signed = (a: number, b: number): string => `${a >= b ? '+' : ''}${((a / b - 1) * 100).toFixed(1)}%`;
    const cpu = ours.cpu && theirs.cpu ? `, CPU per request ${signed(ours.cpu.main, theirs.cpu.main)} main thread, ${signed(ours.cpu.all, theirs.cpu.all)} all threads` : '';
    return `${signed(ours.rps, theirs.rps)} req/s${cpu}`;
  };
  // The creates of the POST and bulk rows all go to one table, so each later request meets a larger
  // one: the two builds, the twin and the floor write in the same alternating rounds, each round
  // starting one target later, so they meet the same growth; and the kinds that read come first.
  const loads: Partial<Record<ComparedRowKind, { name: string; service: Load; floor: Load }>> = {
    'by-id': { name: 'GET /resources/{id}', service: { paths: paths.byId, headers }, floor: { paths: paths.byId } },
    list: { name: 'GET /resources?limit=20 (cursor, page 1)', service: listPage1(headers), floor: listPage1() },
    ...(paths.deep && {
      deep: { name: 'GET /resources?limit=20 (cursor, 90,000 deep)', service: { paths: [paths.deep.service], headers }, floor: { paths: [paths.deep.floor] } },
    }),
    post: { name: 'POST /resources', service: createOne(headers), floor: createOne() },
    bulk: { name: 'POST /resources/bulk (100 items, 2 connections)', service: createHundred(headers), floor: createHundred() },
  };
  const tables: Row[][] = [];
  for (const kind of kinds) {
    const load = loads[kind];
    if (!load) throw new Error(`no load for the ${kind} rows`);
    const { name, service, floor: floorLoad } = load;
    // An access token lasts 15 minutes, less than all the kinds' rounds.
    await logIn();
    const [current, twin, compared, floor] = await measureRounds([
      { port: PORTS.api, load: service },
      { port: PORTS.twin, load: service },
      { port: PORTS.compared, load: service },
      { port: PORTS.floor, load: floorLoad },
    ]);
    tables.push([
      { scenario: `${name}, the build in ${dist} on Node ${comparedRuntime}`, service: compared, floor, target: '(reference)', pass: true },
      { scenario: `${name}, this build on Node ${ownRuntime} (${change(current, compared)})`, service: current, floor, target: '(reported)', pass: true },
      { scenario: `${name}, this build again, a second process (A/A: ${change(twin, current)})`, service: twin, floor, target: '(noise)', pass: true },
    ]);
    process.stdout.write(`measured ${name} against ${dist}\n`);
  }
  return tables;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  for (const child of children) child.kill('SIGTERM');
  process.exit(1);
});
