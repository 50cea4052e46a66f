/**
 * `npm run bench`: starts the built service on a scratch database seeded with 100,000
 * resources, measures each route with autocannon beside a bare `pg` baseline answering the
 * same SQL, then the cost of each credential kind and of the rate-limit check, and prints one
 * table. Everything it creates (database, Redis keys, processes) is removed at the end.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { deleteRedisKeys } from '@app/testing/test-environment';
import { Client } from 'pg';

const RUN = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const DATABASE = `rms_bench_${RUN}`;
const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const SEEDED = 100_000;
const PORTS = { api: 3900, baseline: 3901, variant: 3902 };
const LOG_DIR = '.bench';

const serviceEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: 'production',
  APP_ENV: 'test',
  DATABASE_URL: `${SERVER}/${DATABASE}`,
  REDIS_URL,
  REDIS_PREFIX: DATABASE,
  JWT_SECRET: randomBytes(32).toString('hex'),
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  // The full pipeline counts every request in Redis; the limit is raised so that the load
  // generator measures the counted path rather than 429s.
  RATE_LIMIT_PLAN_LIMITS: 'free=1000000000,pro=1000000000,enterprise=1000000000',
};

const children: ChildProcess[] = [];

function startProcess(name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const log = openSync(`${LOG_DIR}/${name}.log`, 'w');
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', log, log] });
  children.push(child);
  return child;
}

const TS_NODE = ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'];

async function waitFor(url: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not come up`);
}

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

/** 100,000 resources of one owner, one millisecond apart, with valid `res_` ids. */
async function seed(db: Client, ownerId: string): Promise<string[]> {
  await db.query(
    `INSERT INTO resources (id, owner_id, name, description, type, status, metadata, tags, created_at, updated_at)
     SELECT 'res_' || upper(lpad(to_hex(n), 26, '0')), $1, 'Resource ' || n, 'Seeded for the benchmark',
            CASE WHEN n % 3 = 0 THEN 'premium' ELSE 'standard' END, 'active',
            jsonb_build_object('n', n), '["bench"]'::jsonb,
            now() - ($2 - n) * interval '1 millisecond', now() - ($2 - n) * interval '1 millisecond'
     FROM generate_series(1, $2) AS n`,
    [ownerId, SEEDED],
  );
  // As autovacuum would have by now: index-only scans need the visibility map.
  await db.query('VACUUM ANALYZE resources');
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM resources WHERE owner_id = $1 ORDER BY random() LIMIT 1000`,
    [ownerId],
  );
  return rows.map((row) => row.id);
}

interface Measured {
  rps: number;
  p99: number;
  non2xx: number;
}

interface Load {
  method?: 'GET' | 'POST';
  paths: string[];
  body?: string;
  headers?: Record<string, string>;
  connections?: number;
}

async function measure(port: number, load: Load): Promise<Measured> {
  let next = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: load.connections ?? 10,
    duration: DURATION,
    headers: { 'content-type': 'application/json', ...load.headers },
    requests: [
      {
        method: load.method ?? 'GET',
        body: load.body,
        setupRequest: (request) => ({ ...request, path: load.paths[next++ % load.paths.length] }),
      },
    ],
  });
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}

/** Two seconds of the same load first, so that the measured run sees optimized code. */
async function warm(port: number, load: Load): Promise<void> {
  await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: load.connections ?? 10,
    duration: 2,
    headers: { 'content-type': 'application/json', ...load.headers },
    requests: [{ method: load.method ?? 'GET', body: load.body, path: load.paths[0] }],
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

const resourceBody = (n: number) => ({
  name: `Benchmark resource ${n}`,
  description: 'Created by the benchmark',
  type: 'standard',
  metadata: { source: 'bench', n },
  tags: ['bench'],
});

interface Row {
  scenario: string;
  service: Measured;
  baseline?: Measured;
  target: string;
  pass: boolean;
}

const fmt = (value: number): string => value.toFixed(0);

function table(rows: Row[]): string {
  const lines = [
    '| scenario | service req/s | service p99 ms | baseline req/s | baseline p99 ms | service / baseline | target | met |',
    '|---|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const row of rows) {
    const ratio = row.baseline ? `${((row.service.rps / row.baseline.rps) * 100).toFixed(0)}%` : '';
    lines.push(
      `| ${row.scenario} | ${fmt(row.service.rps)} | ${fmt(row.service.p99)} | ${row.baseline ? fmt(row.baseline.rps) : ''} | ${
        row.baseline ? fmt(row.baseline.p99) : ''
      } | ${ratio} | ${row.target} | ${row.pass ? 'yes' : 'no'} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  mkdirSync(LOG_DIR, { recursive: true });
  const admin = new Client({ connectionString: `${SERVER}/postgres` });
  await admin.connect();
  const prepared = spawnSync(process.execPath, ['dist/apps/api/src/cli.js', 'db:prepare'], { env: serviceEnv, stdio: 'inherit' });
  if (prepared.status !== 0) throw new Error('db:prepare failed');
  const db = new Client({ connectionString: serviceEnv.DATABASE_URL });
  await db.connect();

  try {
    startProcess('api', ['dist/apps/api/src/main.js'], { ...serviceEnv, PORT: String(PORTS.api) });
    await waitFor(`http://127.0.0.1:${PORTS.api}/health/ready`);

    const credentials = { email: `bench_${RUN}@example.com`, username: `bench_${RUN}`, password: 'benchmark-password' };
    const user = await call(PORTS.api, 'POST', '/v2/auth/register', credentials);
    const ownerId = user.json.data.id;
    await db.query(`UPDATE users SET plan = 'enterprise' WHERE id = $1`, [ownerId]);
    const login = await call(PORTS.api, 'POST', '/v2/auth/login', { email: credentials.email, password: credentials.password });
    const jwt = { authorization: `Bearer ${login.json.data.access_token}` };
    const ids = await seed(db, ownerId);
    const deep = await deepCursor(PORTS.api, jwt, 90_000);

    startProcess('baseline', [...TS_NODE, 'bench/baseline-server.ts'], {
      ...serviceEnv,
      PORT: String(PORTS.baseline),
      BENCH_OWNER_ID: ownerId,
    });
    await waitFor(`http://127.0.0.1:${PORTS.baseline}/`);
    const baselineDeep = await baselineCursor(db, ownerId, 90_000);

    const bulkBody = JSON.stringify({ resources: Array.from({ length: 100 }, (_, n) => resourceBody(n)) });
    const scenarios: Array<{ name: string; service: Load; baseline: Load; target: (s: Measured, b: Measured) => [string, boolean] }> = [
      {
        name: 'GET /resources/{id}',
        service: { paths: ids.map((id) => `/v2/resources/${id}`), headers: jwt },
        baseline: { paths: ids.map((id) => `/v2/resources/${id}`) },
        target: (s, b) => ['>= 40% of baseline req/s', s.rps >= 0.4 * b.rps],
      },
      {
        name: 'GET /resources?limit=20 (cursor, page 1)',
        service: { paths: ['/v2/resources?limit=20'], headers: jwt },
        baseline: { paths: ['/v2/resources?limit=20'] },
        target: (s, b) => ['>= 40% of baseline req/s', s.rps >= 0.4 * b.rps],
      },
      {
        name: 'GET /resources?limit=20 (cursor, 90,000 deep)',
        service: { paths: [`/v2/resources?limit=20&cursor=${deep}`], headers: jwt },
        baseline: { paths: [`/v2/resources?limit=20&cursor=${baselineDeep}`] },
        target: () => ['p99 within 1.2x of page 1', true],
      },
      {
        name: 'GET /resources?per_page=20&page=4000 (offset)',
        service: { paths: ['/v2/resources?per_page=20&page=4000'], headers: jwt },
        baseline: { paths: ['/v2/resources?per_page=20&page=4000'] },
        target: () => ['(reported)', true],
      },
      {
        name: 'POST /resources',
        service: { method: 'POST', paths: ['/v2/resources'], body: JSON.stringify(resourceBody(1)), headers: jwt },
        baseline: { method: 'POST', paths: ['/v2/resources'], body: JSON.stringify(resourceBody(1)) },
        target: (s, b) => ['>= 35% of baseline req/s', s.rps >= 0.35 * b.rps],
      },
      {
        name: 'POST /resources/bulk (100 items, 2 connections)',
        service: { method: 'POST', paths: ['/v2/resources/bulk'], body: bulkBody, headers: jwt, connections: 2 },
        baseline: { method: 'POST', paths: ['/v2/resources/bulk'], body: bulkBody, connections: 2 },
        target: (s) => ['p99 < 60 ms', s.p99 < 60],
      },
    ];

    const rows: Row[] = [];
    for (const scenario of scenarios) {
      await warm(PORTS.api, scenario.service);
      await warm(PORTS.baseline, scenario.baseline);
      const service = await measure(PORTS.api, scenario.service);
      const baseline = await measure(PORTS.baseline, scenario.baseline);
      const [target, pass] = scenario.target(service, baseline);
      rows.push({ scenario: scenario.name, service, baseline, target, pass });
      process.stdout.write(`measured ${scenario.name}\n`);
    }
    const [page1, deepRow] = [rows[1], rows[2]];
    deepRow.pass = deepRow.service.p99 <= Math.max(1.2 * page1.service.p99, page1.service.p99 + 1);

    rows.push(...(await organizationMemberRows(db, jwt)));
    rows.push(...(await credentialCosts(ids, ownerId, credentials)));

    const output = table(rows);
    const failures = rows
      .filter((row) => row.service.non2xx > 0 || (row.baseline?.non2xx ?? 0) > 0)
      .map((row) => `${row.scenario}: ${row.service.non2xx} non-2xx (baseline ${row.baseline?.non2xx ?? 0})`);
    writeFileSync(`${LOG_DIR}/results.md`, `${output}\n`);
    process.stdout.write(`\n${output}\n\n`);
    if (failures.length > 0) process.stdout.write(`non-2xx answers seen:\n${failures.join('\n')}\n`);
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
 * A member of three organizations who sees the 100,000 seeded resources only through them
 * (decisions 4): cursor page 1 against a page 5,000 deep, which must cost about the same.
 * Runs after the owner's scenarios, as it spreads their resources over the organizations.
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
  const login = await call(PORTS.api, 'POST', '/v2/auth/login', { email: credentials.email, password: credentials.password });
  const headers = { authorization: `Bearer ${login.json.data.access_token}` };
  const deep = await deepCursor(PORTS.api, headers, 5_000);
  const run = async (path: string): Promise<Measured> => {
    await warm(PORTS.api, { paths: [path], headers });
    return measure(PORTS.api, { paths: [path], headers });
  };
  const first = await run('/v2/resources?limit=20');
  const deeper = await run(`/v2/resources?limit=20&cursor=${deep}`);
  return [
    { scenario: 'GET /resources?limit=20 as a member of 3 organizations (cursor, page 1)', service: first, target: '(reference)', pass: true },
    {
      scenario: 'GET /resources?limit=20 as a member of 3 organizations (cursor, 5,000 deep)',
      service: deeper,
      target: 'p99 within 1.2x of page 1',
      pass: deeper.p99 <= Math.max(1.2 * first.p99, first.p99 + 1),
    },
  ];
}

/**
 * GET /resources/{id} through the same app with each credential, with the rate-limit check
 * switched off, and with neither authentication nor rate limiting (a constant caller).
 */
async function credentialCosts(
  ids: string[],
  ownerId: string,
  credentials: { email: string; password: string },
): Promise<Row[]> {
  const paths = ids.map((id) => `/v2/resources/${id}`);
  const start = async (mode: string): Promise<ChildProcess> => {
    const child = startProcess(`variant-${mode}`, [...TS_NODE, 'bench/api-variant.ts'], {
      ...serviceEnv,
      PORT: String(PORTS.variant),
      BENCH_MODE: mode,
      BENCH_OWNER_ID: ownerId,
    });
    await waitFor(`http://127.0.0.1:${PORTS.variant}/health/live`);
    return child;
  };
  const stop = async (child: ChildProcess): Promise<void> => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  const run = async (headers: Record<string, string>): Promise<Measured> => {
    await warm(PORTS.variant, { paths, headers });
    return measure(PORTS.variant, { paths, headers });
  };

  const rows: Row[] = [];
  const bare = await start('unauthenticated');
  const unauthenticated = await run({});
  await stop(bare);
  rows.push({ scenario: 'GET /resources/{id}, no authentication, no rate limit', service: unauthenticated, target: '(reference)', pass: true });

  for (const rateLimited of [false, true]) {
    const child = await start(rateLimited ? 'full' : 'no-rate-limit');
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
    for (const [kind, headers] of kinds) {
      const service = await run(headers);
      const cost = 1 - service.rps / unauthenticated.rps;
      rows.push({
        scenario: `GET /resources/{id}, ${kind}${rateLimited ? ' + rate limit' : ''} (cost ${(cost * 100).toFixed(0)}%)`,
        service,
        target: rateLimited ? 'auth + rate limit cost < 25%' : '(auth alone)',
        pass: !rateLimited || cost < 0.25,
      });
    }
    await stop(child);
  }
  return rows;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  for (const child of children) child.kill('SIGTERM');
  process.exit(1);
});
