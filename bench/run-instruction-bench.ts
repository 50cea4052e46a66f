/**
 * The instruction count of a read by id (`BENCH_SCENARIOS=instructions`), or with
 * BENCH_INSTRUCTION_READ=list of the list's cursor page 1 (`GET /v2/resources?limit=20`, over the
 * bench's 100,000 seeded resources): the built API under
 * valgrind's callgrind, which counts the instructions the process executes rather than the time
 * they take, so that a change of a few percent shows on a shared machine whose A/A noise in CPU
 * per request is larger. The API serves BENCH_INSTRUCTION_WARM_UP of those reads (15,000: V8 is still
 * compiling before that) with counting off, then BENCH_INSTRUCTION_READS (3,000) with counting on,
 * through 4 connections; the count is divided by the reads. V8's optimizing compilers and its
 * garbage collector are reported apart: when they run depends on timing, and they vary most from
 * run to run (about 7% on the total). Counted in the same BENCH_ROUNDS alternating rounds (3):
 * with BENCH_COMPARE_DIST, that build; with BENCH_INSTRUCTION_TRACING (sampling ratios, `1,0.1`),
 * this build (and the compared one) with tracing on at each, exporting to a sink that keeps nothing. With
 * BENCH_INSTRUCTION_PROFILE (a folder), each count's dump and V8's map of its code are kept there.
 * Needs valgrind (`apt-get install -y valgrind`); the API runs about fifty times slower under it.
 * The database, Redis keys and processes go at the end.
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { deleteRedisKeys } from '@app/testing/test-environment';
import { API_NODE_FLAGS, BENCH_DATABASE_SERVER, BENCH_REDIS_URL, benchServiceEnv, tracingEnv } from './bench-service-env';
import { median } from './process-memory';
import { seedResources } from './seed-resources';

const RUN = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const DATABASE = `rms_bench_${RUN}`;
const PORT = Number(process.env.BENCH_PORT ?? 3900);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const WARM_UP = Number(process.env.BENCH_INSTRUCTION_WARM_UP ?? 15_000);
const READS = Number(process.env.BENCH_INSTRUCTION_READS ?? 3_000);
/** What each request reads: a resource by id (by default) or the list's cursor page 1. */
const READ_KIND = process.env.BENCH_INSTRUCTION_READ === 'list' ? 'list' : 'by-id';
const READ_LABELS = {
  'by-id': 'read by id (GET /resources/{id} with a JWT and the rate limit)',
  list: 'list page 1 (GET /resources?limit=20, cursor, with a JWT and the rate limit)',
} as const;
const COMPARED_DIST = process.env.BENCH_COMPARE_DIST;
/** Sampling ratios (a comma list, `1,0.1`) at which this build is also counted with tracing on, exporting to a sink that keeps nothing. */
const TRACING_RATIOS = (process.env.BENCH_INSTRUCTION_TRACING ?? '').split(',').filter(Boolean);
const OTLP_SINK_PORT = PORT + 1;
/** Where each count's callgrind dump and V8's map of its compiled code are kept, to be read function by function. */
const PROFILE_DIR = process.env.BENCH_INSTRUCTION_PROFILE;
/** Functions of V8's compilers (TurboFan, Turboshaft, Maglev, the parser and bytecode generator) and of its garbage collector, by name. */
const COMPILER = /compiler::|maglev|turboshaft|Compil|Parser|interpreter::|Bytecode/i;
const COLLECTOR = /heap::|Heap::|Scaveng|MarkCompact|Marking|Sweep|Evacuat/;
const serviceEnv: NodeJS.ProcessEnv = { ...process.env, ...benchServiceEnv(DATABASE) };
/**
 * Deadlines for a process running fifty times slower: at the service's own (a second for Redis)
 * a compilation or a collection under valgrind outlasts one now and then, and the read answers
 * 503. A deadline is a timer; how long it is changes no instruction counted.
 */
const UNDER_VALGRIND: NodeJS.ProcessEnv = {
  DATABASE_CONNECT_TIMEOUT_MS: '60000',
  DATABASE_STATEMENT_TIMEOUT_MS: '60000',
  DATABASE_LOCK_TIMEOUT_MS: '60000',
  REDIS_COMMAND_TIMEOUT_MS: '60000',
};

/** Instructions per read: all of them, V8's compilers' and its garbage collector's. */
interface Count {
  total: number;
  compiler: number;
  collector: number;
}

async function untilReady(port: number): Promise<void> {
  // Under valgrind the API takes a minute or two to start.
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('the API did not come up under valgrind');
}

async function read(paths: string[], headers: Record<string, string>, amount: number): Promise<void> {
  let next = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${PORT}`,
    connections: 4,
    amount,
    timeout: 60,
    headers,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
  });
  if (result.errors > 0 || result.non2xx > 0) {
    const statuses = Object.entries(result.statusCodeStats ?? {})
      .map(([status, { count }]) => `${count ?? 0} × ${status}`)
      .join(', ');
    throw new Error(`${result.errors} reads failed (${result.timeouts} timed out), ${result.non2xx} answered other than 2xx; answers: ${statuses}`);
  }
}

/** A callgrind dump's instructions: all of them, V8's compilers' and its garbage collector's (by their functions' names). */
function instructionsOf(dump: string): Count {
  const annotated = execFileSync('callgrind_annotate', ['--threshold=100', dump], { maxBuffer: 1 << 28 }).toString();
  const count: Count = { total: Number(/^([\d,]+) .*PROGRAM TOTALS/m.exec(annotated)?.[1].replace(/,/g, '') ?? NaN), compiler: 0, collector: 0 };
  for (const line of annotated.split('\n')) {
    const match = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!match) continue;
    const instructions = Number(match[1].replace(/,/g, ''));
    if (COMPILER.test(match[2])) count.compiler += instructions;
    else if (COLLECTOR.test(match[2])) count.collector += instructions;
  }
  return count;
}

/** What is counted: a build, with settings of its own (tracing) added to the service's. */
interface Variant {
  name: string;
  dist: string;
  env: NodeJS.ProcessEnv;
}

/** One variant's count: its API started under callgrind, warmed up, then counted over READS reads. */
async function countVariant({ dist, env }: Variant, paths: string[], headers: Record<string, string>): Promise<Count> {
  const out = mkdtempSync(join(tmpdir(), 'rms-callgrind-'));
  const log = openSync(join(out, 'api.log'), 'w');
  const args = ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${join(out, 'callgrind.out')}`];
  // V8 names its compiled code only in a map file (/tmp/perf-<pid>.map) that callgrind cannot read itself.
  const nodeFlags = PROFILE_DIR ? [...API_NODE_FLAGS, '--perf-basic-prof'] : API_NODE_FLAGS;
  const api: ChildProcess = spawn('valgrind', [...args, process.execPath, ...nodeFlags, join(dist, 'apps/api/src/main.js')], {
    env: { ...serviceEnv, ...UNDER_VALGRIND, ...env, PORT: String(PORT) },
    stdio: ['ignore', log, log],
  });
  try {
    await untilReady(PORT);
    await read(paths, headers, WARM_UP);
    execFileSync('callgrind_control', ['--instr=on', String(api.pid)], { stdio: 'ignore' });
    await read(paths, headers, READS);
    execFileSync('callgrind_control', ['--dump', String(api.pid)], { stdio: 'ignore' });
    const dump = readdirSync(out).find((name) => /^callgrind\.out\.\d+$/.test(name));
    if (!dump) throw new Error('callgrind wrote no dump');
    const count = instructionsOf(join(out, dump));
    if (PROFILE_DIR) keepProfile(join(out, dump), api.pid);
    return { total: count.total / READS, compiler: count.compiler / READS, collector: count.collector / READS };
  } catch (error) {
    // The API's warnings and errors say why a read failed; its log goes with the count's folder.
    const logged = readFileSync(join(out, 'api.log'), 'utf8').split('\n');
    console.error(logged.filter((line) => /"level":(4|5|6)0/.test(line)).slice(-20).join('\n'));
    throw error;
  } finally {
    api.kill('SIGKILL');
    await new Promise((resolve) => api.once('exit', resolve));
    rmSync(out, { recursive: true, force: true });
    rmSync(`/tmp/perf-${api.pid}.map`, { force: true });
  }
}

let kept = 0;

/** Copies a count's dump and V8's code map into PROFILE_DIR as <n>.callgrind and <n>.map. */
function keepProfile(dump: string, pid: number | undefined): void {
  mkdirSync(PROFILE_DIR as string, { recursive: true });
  kept += 1;
  copyFileSync(dump, join(PROFILE_DIR as string, `${kept}.callgrind`));
  const map = `/tmp/perf-${pid}.map`;
  if (existsSync(map)) copyFileSync(map, join(PROFILE_DIR as string, `${kept}.map`));
}

const thousands = (value: number): string => `${Math.round(value / 1000).toLocaleString('en-US')}k`;

function row(name: string, counts: Count[], reference?: number): string {
  const totals = counts.map((count) => count.total);
  const total = median(totals);
  const compiler = median(counts.map((count) => count.compiler));
  const collector = median(counts.map((count) => count.collector));
  const rest = median(counts.map((count) => count.total - count.compiler - count.collector));
  const against = reference === undefined ? '' : ` (${((rest / reference - 1) * 100).toFixed(1)}%)`;
  return `| ${name} | ${thousands(total)} (${thousands(Math.min(...totals))}-${thousands(Math.max(...totals))}) | ${thousands(compiler)} | ${thousands(collector)} | ${thousands(rest)}${against} |`;
}

/** What an API answers a POST with: the `data` of its envelope. */
type Post = (path: string, body: unknown) => Promise<{ id: string; access_token: string }>;

/** Runs `work` against a plain API process (under valgrind, argon2 alone takes a minute), stopped after it. */
async function throughPlainApi<T>(work: (post: Post) => Promise<T>): Promise<T> {
  const api = spawn(process.execPath, [...API_NODE_FLAGS, 'dist/apps/api/src/main.js'], { env: { ...serviceEnv, PORT: String(PORT) }, stdio: 'ignore' });
  try {
    await untilReady(PORT);
    return await work(async (path, body) => {
      const response = await fetch(`http://127.0.0.1:${PORT}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { data: { id: string; access_token: string } }).data;
    });
  } finally {
    api.kill('SIGTERM');
    await new Promise((resolve) => api.once('exit', resolve));
  }
}

async function main(): Promise<void> {
  if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is not installed: apt-get install -y valgrind');
  mkdirSync('.bench', { recursive: true });
  const prepared = spawnSync(process.execPath, ['dist/apps/api/src/cli.js', 'db:prepare'], { env: serviceEnv, stdio: 'inherit' });
  if (prepared.status !== 0) throw new Error('db:prepare failed');
  const db = new Client({ connectionString: serviceEnv.DATABASE_URL });
  await db.connect();
  try {
    const email = `bench_${RUN}@example.com`;
    const ownerId = await throughPlainApi(async (post) => (await post('/v2/auth/register', { email, username: `bench_${RUN}`, password: 'benchmark-password' })).id);
    // An access token lasts 15 minutes, less than a run of several counts: each count logs in anew.
    const authorization = () =>
      throughPlainApi(async (post) => ({ authorization: `Bearer ${(await post('/v2/auth/login', { email, password: 'benchmark-password' })).access_token}` }));
    await db.query(`UPDATE users SET plan = 'enterprise' WHERE id = $1`, [ownerId]);
    // The list reads as deep an index as the time bench's; a read by id needs only a few ids.
    const seeded = await seedResources(db, ownerId, READ_KIND === 'list' ? 100_000 : 2_000);
    const paths = READ_KIND === 'list' ? ['/v2/resources?limit=20'] : seeded.map((id) => `/v2/resources/${id}`);

    const variants: Variant[] = [
      { name: 'this build', dist: 'dist', env: {} },
      ...(COMPARED_DIST ? [{ name: `the build in ${COMPARED_DIST}`, dist: COMPARED_DIST, env: {} }] : []),
      ...TRACING_RATIOS.flatMap((ratio) => [
        { name: `this build, tracing on, ${Number(ratio) * 100}% sampled`, dist: 'dist', env: tracingEnv(ratio, OTLP_SINK_PORT) },
        ...(COMPARED_DIST ? [{ name: `the build in ${COMPARED_DIST}, tracing on, ${Number(ratio) * 100}% sampled`, dist: COMPARED_DIST, env: tracingEnv(ratio, OTLP_SINK_PORT) }] : []),
      ]),
    ];
    const sink = TRACING_RATIOS.length > 0 ? spawn(process.execPath, [join(__dirname, 'otlp-sink.js')], { env: { ...process.env, PORT: String(OTLP_SINK_PORT) }, stdio: 'ignore' }) : undefined;
    const counts: Count[][] = variants.map(() => []);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (let step = 0; step < variants.length; step++) {
          const index = (round + step) % variants.length;
          counts[index].push(await countVariant(variants[index], paths, await authorization()));
          console.log(`counted ${variants[index].name}, round ${round + 1}`);
        }
      }
    } finally {
      sink?.kill();
    }
    const restOf = (index: number): number => median(counts[index].map((count) => count.total - count.compiler - count.collector));
    console.log(
      [
        '',
        `Instructions per ${READ_LABELS[READ_KIND]}, medians of ${ROUNDS} rounds of ${READS.toLocaleString('en-US')} reads after ${WARM_UP.toLocaleString('en-US')}:`,
        '',
        "| counted | all (range) | V8's compilers | garbage collector | the rest (against the compared build; a traced build against itself untraced) |",
        '|---|---:|---:|---:|---:|',
        ...variants.map((variant, index) => {
          if (index === 0) return row(variant.name, counts[index], COMPARED_DIST ? restOf(1) : undefined);
          const untraced = variant.dist === 'dist' ? 0 : 1;
          return row(variant.name, counts[index], Object.keys(variant.env).length > 0 ? restOf(untraced) : undefined);
        }),
      ].join('\n'),
    );
  } finally {
    await db.end();
    const admin = new Client({ connectionString: `${BENCH_DATABASE_SERVER}/postgres` });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await admin.end();
    await deleteRedisKeys(BENCH_REDIS_URL, DATABASE);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
