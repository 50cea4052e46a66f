/**
 * `BENCH_SCENARIOS=replicas npm run bench`: `GET /v2/resources/{id}` with a JWT through HAProxy
 * configured as docs/operations.md advises (PrivateHaproxy: round robin, `/health/ready` checked
 * every 2 s, out after 2 failed checks), in front of one built API replica and in front of two, on
 * a scratch database seeded with 100,000 resources, the service set up as in the API benchmark
 * (bench-service-env.ts). Then the same load through the two while they restart in turn as an
 * orchestrator rolls them: SIGTERM to one (it answers readiness 503 for SHUTDOWN_DELAY_MS while it
 * still serves, then drains and exits), the same replica started again on its port and back in
 * service, then the other. One and two replicas are measured in BENCH_ROUNDS alternating rounds of
 * BENCH_DURATION seconds, each after a warm-up, and the rolling restart BENCH_ROUNDS times; the
 * table is printed and written to .bench/results-replicas.md. Everything it creates (database,
 * Redis keys, processes) is removed at the end.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { BuiltApiReplica } from '@app/testing/built-api-replica';
import { OPERATOR_HAPROXY_CHECKS, PrivateHaproxy } from '@app/testing/private-servers';
import { deleteRedisKeys } from '@app/testing/test-environment';
import { API_NODE_FLAGS, BENCH_DATABASE_SERVER, BENCH_REDIS_URL, benchServiceEnv } from './bench-service-env';
import { seedResources } from './seed-resources';

const RUN = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const DATABASE = `rms_bench_replicas_${RUN}`;
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const SEEDED = 100_000;
const CONNECTIONS = 10;
/** As in run-bench.ts: a process that sat idle serves its first seconds slowly. */
const WARM_UP_SECONDS = 5;
/** Production's default, above the 4 s HAProxy takes to find a stopping replica out (2 checks 2 s apart), as docs/operations.md asks. */
const SHUTDOWN_DELAY_MS = 5000;
/** Load before the first SIGTERM and after the last replica is back, inside the measured restart. */
const STEADY_MARGIN_MS = 1000;
const LOG_DIR = '.bench';
const RESULTS_FILE = `${LOG_DIR}/results-replicas.md`;

const serviceEnv: NodeJS.ProcessEnv = { ...process.env, ...benchServiceEnv(DATABASE), SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS) };

/** The parts of the API's answers the benchmark reads. */
interface ApiAnswer {
  data: { id: string; access_token: string };
}

async function call(origin: string, method: string, path: string, body?: unknown): Promise<ApiAnswer> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as ApiAnswer;
}

/** What one load measured. */
interface Measured {
  rps: number;
  p99: number;
  maxLatency: number;
  /** Answers other than 2xx, plus requests that got no answer (connection errors and timeouts). */
  failed: number;
  /** The failed requests by status, `no answer` for those without one. */
  failures: Map<string, number>;
  seconds: number;
  /** The share of the machine's CPU time that was busy meanwhile, whatever used it. */
  cpuBusy: number;
}

/** The machine's CPU time so far (all cores, from /proc/stat), in clock ticks: all of it, and the idle part. */
function machineCpu(): { total: number; idle: number } {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const [, , , idle, iowait] = ticks;
  return { total: ticks.reduce((sum, tick) => sum + tick, 0), idle: idle + iowait };
}

function cpuBusySince(before: { total: number; idle: number }): number {
  const now = machineCpu();
  const total = now.total - before.total;
  return total === 0 ? 0 : 1 - (now.idle - before.idle) / total;
}

/** The by-id load with a JWT, spread over 1,000 ids. */
interface Load {
  port: number;
  paths: string[];
  headers: Record<string, string>;
}

function measuredOf(result: autocannon.Result, cpuBusy: number): Measured {
  const failures = new Map<string, number>(
    Object.entries(result.statusCodeStats ?? {})
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, { count }]) => [status, count ?? 0]),
  );
  if (result.errors > 0) failures.set('no answer', result.errors);
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    maxLatency: result.latency.max,
    failed: result.non2xx + result.errors,
    failures,
    seconds: result.duration,
    cpuBusy,
  };
}

/** Starts the load; it runs until `stop`, which resolves with what it measured. */
function startLoad(target: Load, durationSeconds: number): { stop(): Promise<Measured>; finished: Promise<Measured> } {
  let next = 0;
  let instance: autocannon.Instance | undefined;
  const cpuBefore = machineCpu();
  const finished = new Promise<Measured>((resolve, reject) => {
    instance = autocannon(
      {
        url: `http://127.0.0.1:${target.port}`,
        connections: CONNECTIONS,
        duration: durationSeconds,
        headers: { 'content-type': 'application/json', ...target.headers },
        requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: target.paths[next++ % target.paths.length] }) }],
      },
      (error: Error | null, result) => (error ? reject(error) : resolve(measuredOf(result, cpuBusySince(cpuBefore)))),
    );
  });
  return {
    finished,
    stop: () => {
      instance?.stop();
      return finished;
    },
  };
}

const load = (target: Load, durationSeconds: number): Promise<Measured> => startLoad(target, durationSeconds).finished;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The rounds of one scenario: medians, the range of req/s, and every failed request. */
interface Summary {
  rps: number;
  rpsMin: number;
  rpsMax: number;
  p99: number;
  maxLatency: number;
  failed: number;
  failures: Map<string, number>;
  seconds: number;
  cpuBusy: number;
}

function summarize(measured: Measured[]): Summary {
  const rps = measured.map((m) => m.rps);
  const failures = new Map<string, number>();
  for (const [status, count] of measured.flatMap((m) => [...m.failures])) failures.set(status, (failures.get(status) ?? 0) + count);
  return {
    rps: median(rps),
    rpsMin: Math.min(...rps),
    rpsMax: Math.max(...rps),
    p99: median(measured.map((m) => m.p99)),
    maxLatency: Math.max(...measured.map((m) => m.maxLatency)),
    failed: measured.reduce((sum, m) => sum + m.failed, 0),
    failures,
    seconds: median(measured.map((m) => m.seconds)),
    cpuBusy: median(measured.map((m) => m.cpuBusy)),
  };
}

/** The targets in ROUNDS rounds that alternate between them, each round starting one later, each measurement after its own warm-up. */
async function measureRounds(targets: Load[]): Promise<Summary[]> {
  const rounds: Measured[][] = targets.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let step = 0; step < targets.length; step++) {
      const index = (round + step) % targets.length;
      await load(targets[index], WARM_UP_SECONDS);
      rounds[index].push(await load(targets[index], DURATION));
    }
  }
  return rounds.map(summarize);
}

/**
 * The load through the two replicas from STEADY_MARGIN_MS before the first SIGTERM to
 * STEADY_MARGIN_MS after the second replica is back in service.
 */
async function rollingRestart(target: Load, haproxy: PrivateHaproxy, replicas: BuiltApiReplica[]): Promise<Measured> {
  await load(target, WARM_UP_SECONDS);
  // Longer than any restart here; the load stops when the restart is over.
  const running = startLoad(target, 600);
  try {
    await delay(STEADY_MARGIN_MS);
    for (const replica of replicas) {
      await replica.terminate();
      await replica.start();
      await haproxy.allInService();
    }
    await delay(STEADY_MARGIN_MS);
  } finally {
    await running.stop();
  }
  return running.finished;
}

const fmt = (value: number): string => value.toFixed(0);

function table(one: Summary, two: Summary, restart: Summary, loadAverage: string): string {
  const rate = (summary: Summary): string => `${fmt(summary.rps)} (${fmt(summary.rpsMin)}-${fmt(summary.rpsMax)})`;
  const failed = (summary: Summary): string =>
    summary.failed === 0 ? '0' : `${summary.failed} (${[...summary.failures].map(([status, count]) => `${status}: ${count}`).join(', ')})`;
  const row = (scenario: string, replicas: string, summary: Summary, versusOne: string): string =>
    `| ${scenario} | ${replicas} | ${rate(summary)} | ${fmt(summary.p99)} | ${fmt(summary.maxLatency)} | ${failed(summary)} | ${versusOne} | ${fmt(summary.cpuBusy * 100)}% |`;
  return [
    `GET /v2/resources/{id} with a JWT through HAProxy, ${CONNECTIONS} connections. Medians of ${ROUNDS} alternating rounds of ${DURATION} s`,
    `(req/s as median (lowest-highest)); the rolling restart measured ${ROUNDS} time(s), for as long as it lasted (median ${restart.seconds.toFixed(1)} s).`,
    `Load average at the start: ${loadAverage}. Machine CPU busy: the share of all ${cpus().length} cores' time, whatever used it.`,
    '',
    '| scenario | API replicas | req/s | p99 ms | max ms | failed requests | req/s / one replica | machine CPU busy |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    row('steady', '1', one, '100%'),
    row('steady', '2', two, `${fmt((two.rps / one.rps) * 100)}%`),
    row(`rolling restart (SIGTERM, SHUTDOWN_DELAY_MS=${SHUTDOWN_DELAY_MS}, started again, back in service; one, then the other)`, '2', restart, `${fmt((restart.rps / one.rps) * 100)}%`),
  ].join('\n');
}

async function main(): Promise<void> {
  mkdirSync(LOG_DIR, { recursive: true });
  const loadAverage = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  const admin = new Client({ connectionString: `${BENCH_DATABASE_SERVER}/postgres` });
  await admin.connect();
  const prepared = spawnSync(process.execPath, ['dist/apps/api/src/cli.js', 'db:prepare'], { env: serviceEnv, stdio: 'inherit' });
  if (prepared.status !== 0) throw new Error('db:prepare failed');
  const db = new Client({ connectionString: serviceEnv.DATABASE_URL });
  await db.connect();

  const started: BuiltApiReplica[] = [];
  const balancers: PrivateHaproxy[] = [];
  // The replicas lead process groups of their own, which an interrupt of the benchmark does not reach.
  const interrupted = (): void => {
    for (const replica of started) void replica.kill();
    process.exit(130);
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    for (const index of [1, 2]) {
      // Each start of a replica appends to its log; the run starts them afresh.
      const logFile = `${LOG_DIR}/replica-${index}.log`;
      writeFileSync(logFile, '');
      started.push(await BuiltApiReplica.onFreePort({ env: serviceEnv, nodeFlags: API_NODE_FLAGS, logFile }));
    }
    await Promise.all(started.map((replica) => replica.start()));
    const oneReplica = await PrivateHaproxy.start([started[0].port], OPERATOR_HAPROXY_CHECKS);
    balancers.push(oneReplica);
    const twoReplicas = await PrivateHaproxy.start(started.map((replica) => replica.port), OPERATOR_HAPROXY_CHECKS);
    balancers.push(twoReplicas);
    await Promise.all([oneReplica.allInService(), twoReplicas.allInService()]);

    const credentials = { email: `bench_${RUN}@example.com`, username: `bench_${RUN}`, password: 'benchmark-password' };
    const user = await call(twoReplicas.url, 'POST', '/v2/auth/register', credentials);
    await db.query(`UPDATE users SET plan = 'enterprise' WHERE id = $1`, [user.data.id]);
    const ids = await seedResources(db, user.data.id, SEEDED);
    const paths = ids.map((id) => `/v2/resources/${id}`);
    // An access token lasts 15 minutes, less than a long run: each phase logs in again.
    const jwt = async (): Promise<Record<string, string>> => {
      const login = await call(twoReplicas.url, 'POST', '/v2/auth/login', { email: credentials.email, password: credentials.password });
      return { authorization: `Bearer ${login.data.access_token}` };
    };

    const steadyHeaders = await jwt();
    const [one, two] = await measureRounds([
      { port: oneReplica.port, paths, headers: steadyHeaders },
      { port: twoReplicas.port, paths, headers: steadyHeaders },
    ]);
    process.stdout.write('measured one and two replicas\n');

    const restarts: Measured[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      restarts.push(await rollingRestart({ port: twoReplicas.port, paths, headers: await jwt() }, twoReplicas, started));
      process.stdout.write(`measured rolling restart ${round + 1} of ${ROUNDS}\n`);
    }

    const output = table(one, two, summarize(restarts), loadAverage);
    writeFileSync(RESULTS_FILE, `${output}\n`);
    process.stdout.write(`\n${output}\n\n`);
  } finally {
    await Promise.all(started.map((replica) => replica.kill()));
    await Promise.all(balancers.map((balancer) => balancer.stop()));
    await db.end();
    await admin.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
    await admin.end();
    await deleteRedisKeys(BENCH_REDIS_URL, DATABASE);
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`replica benchmark failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
