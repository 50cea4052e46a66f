/**
 * The scale benchmark (`BENCH_SCENARIOS=scale npm run bench`): the same reads on a database of
 * BENCH_SCALE_ROWS resources (10,000,000) and on one of 100,000, so that only the size of the
 * tables differs. Both have the same shape per owner: 10,000 resources and 30,000 events each,
 * the owners' rows interleaved in time (1,000 owners against 10). Each database is migrated by the
 * service's own `db:prepare` and seeded by set-based SQL (`INSERT ... SELECT generate_series`),
 * with the listing indexes and keys dropped for the load and made again after it from the
 * definitions read before (the end state is checked against them), then vacuumed, analyzed and
 * checkpointed. One built API runs on each, and autocannon measures, with a JWT of one owner, in
 * BENCH_ROUNDS rounds (3) of BENCH_DURATION seconds (8) that alternate between the two sizes:
 * by id, cursor page 1, a cursor page 9,000 rows deep into the owner's 10,000, a filtered list,
 * an offset page with its total, and the events list, of the owner and of a user registered after
 * the seed (one event of their own). The statements behind each are then run
 * under EXPLAIN (ANALYZE, BUFFERS) at both sizes; the plans go to .bench/scale-explain.md and the
 * table to .bench/scale-results.md. Everything it creates is removed at the end.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { ALL_SCOPES, AuthContext } from '@app/common';
import type { SqlStatement } from '@app/database';
import { deleteRedisKeys } from '@app/testing/test-environment';
import { EVENT_SQL } from '../apps/api/src/events/event.repository';
import { RESOURCE_SQL } from '../apps/api/src/resources/resource.repository';
import { toResourceListQuery } from '../apps/api/src/resources/resource-list-query';
import { API_NODE_FLAGS, BENCH_DATABASE_SERVER, BENCH_REDIS_URL, benchServiceEnv } from './bench-service-env';
import { waitFor } from './wait-for-service';

const RUN = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const LARGE_ROWS = Number(process.env.BENCH_SCALE_ROWS ?? 10_000_000);
const SMALL_ROWS = 100_000;
const RESOURCES_PER_OWNER = 10_000;
const EVENTS_PER_RESOURCE = 3;
/** How deep the deep cursor page starts, in the owner's 10,000 resources. */
const DEEP_ROWS = 9_000;
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/** The same warm-up as run-bench.ts, for the same reason: a process left idle serves its first seconds slowly. */
const WARM_UP_SECONDS = 5;
const FIRST_PORT = Number(process.env.BENCH_PORT ?? 3900) + 20;
/** Rows per INSERT of the seed; the seed runs on two connections, one statement each at a time. */
const SEED_CHUNK = 500_000;
const SEED_CONNECTIONS = 2;
/** The cost ratio (req/s at 100,000 over req/s at the large size) the reads by id and by cursor must stay within. */
const COST_TARGET = 1.3;
/** What the seed takes on disk per 1,000,000 resources with their events and indexes (2.1 GB measured), with room to spare. */
const DISK_BYTES_PER_MILLION_ROWS = 2.5e9;
/** The share of pages the visibility map must mark after the seed's VACUUM, and how many times it is tried. */
const ALL_VISIBLE_SHARE = 0.99;
const VACUUM_ATTEMPTS = 5;
const LOG_DIR = '.bench';

interface Size {
  label: string;
  rows: number;
  owners: number;
  database: string;
  port: number;
  env: NodeJS.ProcessEnv;
}

const countLabel = (rows: number): string =>
  rows >= 1_000_000 ? `${rows / 1_000_000}M` : rows >= 1000 ? `${rows / 1000}k` : String(rows);

function sizeOf(rows: number, index: number): Size {
  const database = `rms_bench_scale_${countLabel(rows).toLowerCase()}_${RUN}`;
  return {
    label: countLabel(rows),
    rows,
    owners: rows / RESOURCES_PER_OWNER,
    database,
    port: FIRST_PORT + index,
    env: { ...process.env, ...benchServiceEnv(database) },
  };
}

const children: ChildProcess[] = [];

function startApi(size: Size): void {
  const log = openSync(`${LOG_DIR}/scale-api-${size.label}.log`, 'w');
  const child = spawn(process.execPath, [...API_NODE_FLAGS, 'dist/apps/api/src/main.js'], {
    env: { ...size.env, PORT: String(size.port) },
    stdio: ['ignore', log, log],
  });
  children.push(child);
}

interface ApiAnswer {
  data: { id: string; access_token: string };
  meta: { cursor: { next: string } };
}

async function call(port: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as ApiAnswer;
}

const elapsed = (since: number): string => `${((Date.now() - since) / 1000).toFixed(0)} s`;
const log = (line: string): void => void process.stdout.write(`${line}\n`);

/** Runs the statements on `clients`, each client taking the next one when it is free. */
async function inParallel(clients: Client[], statements: SqlStatement[], onDone?: (done: number) => void): Promise<void> {
  let next = 0;
  let done = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < statements.length) {
        const { text, values } = statements[next++];
        await client.query(text, values);
        onDone?.(++done);
      }
    }),
  );
}

interface SchemaItem {
  kind: string;
  tableName: string;
  name: string;
  definition: string;
}

/** The indexes, keys, foreign keys and storage options of the seeded tables, as the migrations made them. */
async function seededTableSchema(db: Client): Promise<SchemaItem[]> {
  const { rows } = await db.query<SchemaItem>(
    `SELECT 'index' AS kind, tablename AS "tableName", indexname AS name, indexdef AS definition
       FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('resources', 'events')
     UNION ALL
     SELECT 'constraint', conrelid::regclass::text, conname, contype::text || ' ' || pg_get_constraintdef(oid)
       FROM pg_constraint WHERE conrelid IN ('resources'::regclass, 'events'::regclass)
     UNION ALL
     SELECT 'options', relname, relname, coalesce(array_to_string(reloptions, ','), '')
       FROM pg_class WHERE oid IN ('resources'::regclass, 'events'::regclass)
     ORDER BY 1, 2, 3`,
  );
  return rows;
}

/** The owner of row `n`: every `owners`-th row is the benchmark user's, the others are users made for the seed. */
const ownerOf = (n: string, owners: number): string =>
  `CASE WHEN ${n} % ${owners} = 0 THEN $1 ELSE 'usr_' || lpad(upper(to_hex(${n} % ${owners})), 26, '0') END`;

/**
 * Seeds `size.rows` resources and three times as many events over `size.owners` owners, the
 * benchmark user (`ownerId`) being one of them. Keys and indexes of both tables are dropped for
 * the load (inserting into eleven interleaved indexes is what makes a row-by-row load slow) and
 * made again from the definitions read before; what the migrations made is checked to be back.
 */
async function seed(size: Size, ownerId: string): Promise<void> {
  const started = Date.now();
  const clients = Array.from({ length: SEED_CONNECTIONS }, () => new Client({ connectionString: size.env.DATABASE_URL }));
  await Promise.all(clients.map((client) => client.connect()));
  try {
    const [db] = clients;
    for (const client of clients) {
      // Index builds sort in memory; one build per connection, as the two connections are the two cores.
      await client.query(`SET maintenance_work_mem = '1GB'; SET max_parallel_maintenance_workers = 0; SET synchronous_commit = off`);
    }
    const migrated = await seededTableSchema(db);
    const constraints = migrated.filter((item) => item.kind === 'constraint' && !item.definition.startsWith('c '));
    const constraintIndexes = new Set(constraints.map((item) => item.name));
    const indexes = migrated.filter((item) => item.kind === 'index' && !constraintIndexes.has(item.name));
    await db.query(
      `INSERT INTO users (id, email, username, password_hash, plan)
       SELECT 'usr_' || lpad(upper(to_hex(n)), 26, '0'), 'scale-' || n || '@example.com', 'scale_' || n, 'not a hash', 'free'
         FROM generate_series(1, $1 - 1) AS n`,
      [size.owners],
    );
    for (const table of ['resources', 'events']) await db.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    for (const item of constraints.filter((c) => c.definition.startsWith('f '))) {
      await db.query(`ALTER TABLE ${item.tableName} DROP CONSTRAINT ${item.name}`);
    }
    for (const item of indexes) await db.query(`DROP INDEX ${item.name}`);
    for (const item of constraints.filter((c) => !c.definition.startsWith('f '))) {
      await db.query(`ALTER TABLE ${item.tableName} DROP CONSTRAINT ${item.name}`);
    }

    const resources = size.rows;
    const events = size.rows * EVENTS_PER_RESOURCE;
    const chunks = (total: number, statement: (first: number, last: number) => SqlStatement): SqlStatement[] =>
      Array.from({ length: Math.ceil(total / SEED_CHUNK) }, (_, index) =>
        statement(index * SEED_CHUNK, Math.min(total, (index + 1) * SEED_CHUNK) - 1),
      );
    // One owner's rows are every `owners`-th, one millisecond apart per row of the whole table.
    const resourceInserts = chunks(resources, (first, last) => ({
      text: `INSERT INTO resources (id, owner_id, name, description, type, status, metadata, tags, created_at, updated_at)
             SELECT 'res_' || lpad(upper(to_hex(n)), 26, '0'), ${ownerOf('n', size.owners)}, 'Resource ' || n,
                    'Seeded for the scale benchmark', CASE WHEN (n / ${size.owners}) % 3 = 0 THEN 'premium' ELSE 'standard' END,
                    'active', jsonb_build_object('n', n), '["bench"]'::jsonb,
                    $2::timestamptz - ($3 - n) * interval '1 millisecond', $2::timestamptz - ($3 - n) * interval '1 millisecond'
               FROM generate_series($4::bigint, $5::bigint) AS n`,
      values: [ownerId, new Date().toISOString(), resources, first, last],
    }));
    const eventInserts = chunks(events, (first, last) => ({
      text: `INSERT INTO events (id, type, data, owner_id, created_at, published_at)
             SELECT 'evt_' || lpad(upper(to_hex(n)), 26, '0'),
                    (ARRAY['resource.created', 'resource.updated', 'resource.deleted'])[1 + (n / ${size.owners}) % 3],
                    jsonb_build_object('object', jsonb_build_object(
                      'id', 'res_' || lpad(upper(to_hex(n / 3)), 26, '0'), 'object', 'resource',
                      'name', 'Resource ' || n / 3, 'status', 'active')),
                    ${ownerOf('n', size.owners)},
                    $2::timestamptz - ($3 - n) * interval '1 millisecond', $2::timestamptz - ($3 - n) * interval '1 millisecond'
               FROM generate_series($4::bigint, $5::bigint) AS n`,
      values: [ownerId, new Date().toISOString(), events, first, last],
    }));
    const inserts = [...resourceInserts, ...eventInserts];
    await inParallel(clients, inserts, (done) => {
      if (done % 10 === 0 || done === inserts.length) log(`  ${size.label}: ${done} of ${inserts.length} seed statements, ${elapsed(started)}`);
    });
    log(`  ${size.label}: rows loaded in ${elapsed(started)}; making the keys and indexes again`);

    // Keys first (the indexes do not need them, but the foreign keys' checks read them), one table per connection.
    const rebuild = (table: string): SqlStatement[] => [
      ...constraints
        .filter((c) => c.tableName === table && !c.definition.startsWith('f '))
        .map((c) => ({ text: `ALTER TABLE ${table} ADD CONSTRAINT ${c.name} ${c.definition.slice(2)}`, values: [] })),
      ...indexes.filter((i) => i.tableName === table).map((i) => ({ text: i.definition, values: [] })),
      ...constraints
        .filter((c) => c.tableName === table && c.definition.startsWith('f '))
        .map((c) => ({ text: `ALTER TABLE ${table} ADD CONSTRAINT ${c.name} ${c.definition.slice(2)}`, values: [] })),
    ];
    await Promise.all(
      ['events', 'resources'].map(async (table, index) => {
        for (const { text } of rebuild(table)) await clients[index].query(text);
      }),
    );
    for (const table of ['resources', 'events']) await db.query(`ALTER TABLE ${table} RESET (autovacuum_enabled)`);
    const rebuilt = await seededTableSchema(db);
    if (JSON.stringify(rebuilt) !== JSON.stringify(migrated)) {
      throw new Error(`the seeded schema differs from the migrated one:\n${JSON.stringify({ migrated, rebuilt }, null, 1)}`);
    }
    log(`  ${size.label}: keys and indexes as migrated, ${elapsed(started)}; vacuuming`);
    await vacuumUntilAllVisible(size, clients);
    await db.query('VACUUM ANALYZE users');
    // The seed's pages are written out now, not by a checkpoint in the middle of a measurement.
    await db.query('CHECKPOINT');
    const { rows } = await db.query<{ size: string }>(`SELECT pg_size_pretty(pg_database_size(current_database())) AS size`);
    log(`  ${size.label}: seeded in ${elapsed(started)}, database ${rows[0].size}`);
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
}

/**
 * VACUUM ANALYZE of both tables, as autovacuum would have done by now: index-only scans (the total
 * of offset pages, the events' candidates) need the visibility map. A transaction older than the
 * seed, anywhere that holds the horizon back, leaves pages unmarked; then it vacuums again.
 */
async function vacuumUntilAllVisible(size: Size, clients: Client[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await Promise.all(['events', 'resources'].map((table, index) => clients[index].query(`VACUUM ANALYZE ${table}`)));
    const { rows } = await clients[0].query<{ relname: string; share: number }>(
      `SELECT relname, relallvisible::float / greatest(relpages, 1) AS share FROM pg_class WHERE relname IN ('resources', 'events')`,
    );
    const marked = rows.map((row) => `${row.relname} ${(row.share * 100).toFixed(0)}%`).join(', ');
    if (rows.every((row) => row.share >= ALL_VISIBLE_SHARE)) return;
    if (attempt === VACUUM_ATTEMPTS) {
      log(`  ${size.label}: pages all-visible after ${attempt} vacuums: ${marked}; index-only scans will visit the heap`);
      return;
    }
    log(`  ${size.label}: pages all-visible: ${marked}; vacuuming again in 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
  }
}

interface Measured {
  rps: number;
  p99: number;
  non2xx: number;
}

interface Summary extends Measured {
  rpsMin: number;
  rpsMax: number;
}

async function load(port: number, paths: string[], headers: Record<string, string>, duration: number): Promise<Measured> {
  let next = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 10,
    duration,
    headers,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
  });
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** One load per size, in ROUNDS rounds that alternate which size goes first, each after its own warm-up. */
async function measureRounds(targets: Array<{ port: number; paths: string[]; headers: Record<string, string> }>): Promise<Summary[]> {
  const rounds: Measured[][] = targets.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let step = 0; step < targets.length; step++) {
      const index = (round + step) % targets.length;
      const { port, paths, headers } = targets[index];
      await load(port, paths, headers, WARM_UP_SECONDS);
      rounds[index].push(await load(port, paths, headers, DURATION));
    }
  }
  return rounds.map((measured) => {
    const rps = measured.map((m) => m.rps);
    return {
      rps: median(rps),
      rpsMin: Math.min(...rps),
      rpsMax: Math.max(...rps),
      p99: median(measured.map((m) => m.p99)),
      non2xx: measured.reduce((sum, m) => sum + m.non2xx, 0),
    };
  });
}

/** Walks the owner's listing 100 rows at a time to the cursor that starts after row `depth`. */
async function deepCursor(port: number, headers: Record<string, string>, depth: number): Promise<string> {
  let cursor = '';
  for (let seen = 0; seen < depth; seen += 100) {
    const page = await call(port, 'GET', `/v2/resources?limit=100${cursor ? `&cursor=${cursor}` : ''}`, undefined, headers);
    cursor = page.meta.cursor.next;
  }
  return cursor;
}

/** Who a scenario reads as: the seeded owner, or a user registered after the seed, with no events but their own. */
type Viewer = 'owner' | 'newcomer';

/** What one size serves each scenario with: its users, their tokens and the paths. */
interface Prepared {
  size: Size;
  ownerId: string;
  newcomerId: string;
  headers: Record<Viewer, Record<string, string>>;
  ids: string[];
  deepCursor: string;
  /** The sort position of the deep page's first row, for its statement under EXPLAIN. */
  deepPosition: string[];
}

interface Scenario {
  name: string;
  paths: (prepared: Prepared) => string[];
  viewer: Viewer;
  /** The cost ratio is held to COST_TARGET. */
  held: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: 'GET /resources/{id}', paths: (p) => p.ids.map((id) => `/v2/resources/${id}`), viewer: 'owner', held: true },
  { name: 'GET /resources?limit=20 (cursor, page 1)', paths: () => ['/v2/resources?limit=20'], viewer: 'owner', held: true },
  {
    name: `GET /resources?limit=20 (cursor, ${DEEP_ROWS.toLocaleString('en')} deep of the owner's ${RESOURCES_PER_OWNER.toLocaleString('en')})`,
    paths: (p) => [`/v2/resources?limit=20&cursor=${p.deepCursor}`],
    viewer: 'owner',
    held: true,
  },
  {
    name: 'GET /resources?limit=20&filter[type]=premium (cursor, page 1)',
    paths: () => ['/v2/resources?limit=20&filter%5Btype%5D=premium'],
    viewer: 'owner',
    held: false,
  },
  { name: 'GET /resources?per_page=20&page=1 (offset, with total)', paths: () => ['/v2/resources?per_page=20&page=1'], viewer: 'owner', held: false },
  { name: `GET /events?limit=20 (the owner's ${(RESOURCES_PER_OWNER * EVENTS_PER_RESOURCE).toLocaleString('en')} events)`, paths: () => ['/v2/events?limit=20'], viewer: 'owner', held: false },
  { name: 'GET /events?limit=20 (a new user: one event of their own)', paths: () => ['/v2/events?limit=20'], viewer: 'newcomer', held: false },
];

const credentialsOf = (viewer: Viewer) => ({
  email: `bench_${viewer}_${RUN}@example.com`,
  username: `bench_${viewer}_${RUN}`,
  password: 'benchmark-password',
});

async function logIn(port: number, viewer: Viewer): Promise<Record<string, string>> {
  const { email, password } = credentialsOf(viewer);
  const login = await call(port, 'POST', '/v2/auth/login', { email, password });
  return { authorization: `Bearer ${login.data.access_token}` };
}

async function prepare(size: Size): Promise<Prepared> {
  const user = await call(size.port, 'POST', '/v2/auth/register', credentialsOf('owner'));
  const ownerId = user.data.id;
  const db = new Client({ connectionString: size.env.DATABASE_URL });
  await db.connect();
  try {
    await db.query(`UPDATE users SET plan = 'enterprise' WHERE id = $1`, [ownerId]);
    await seed(size, ownerId);
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM resources WHERE owner_id = $1 ORDER BY random() LIMIT 1000`,
      [ownerId],
    );
    const position = await db.query<{ created_at: string; id: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, id
         FROM resources WHERE owner_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
      [ownerId, DEEP_ROWS - 1],
    );
    const newcomer = await call(size.port, 'POST', '/v2/auth/register', credentialsOf('newcomer'));
    await db.query(`UPDATE users SET plan = 'enterprise' WHERE id = $1`, [newcomer.data.id]);
    const headers = { owner: await logIn(size.port, 'owner'), newcomer: await logIn(size.port, 'newcomer') };
    return {
      size,
      ownerId,
      newcomerId: newcomer.data.id,
      headers,
      ids: rows.map((row) => row.id),
      deepCursor: await deepCursor(size.port, headers.owner, DEEP_ROWS),
      deepPosition: [position.rows[0].created_at, position.rows[0].id],
    };
  } finally {
    await db.end();
  }
}

/** The statements of each scenario for the benchmark's owner, as the repositories build them. */
function scenarioStatements(prepared: Prepared): SqlStatement[] {
  const auth: AuthContext = {
    userId: prepared.ownerId,
    role: 'user',
    plan: 'enterprise',
    credential: 'session',
    scopes: ALL_SCOPES,
    credentialId: 'bench',
  };
  // The owner belongs to no organization: the lists' scope is their own rows.
  const scope = { auth, roles: new Map() };
  const list = toResourceListQuery({ limit: 20 }).spec;
  const filtered = toResourceListQuery({ limit: 20, 'filter[type]': 'premium' }).spec;
  return [
    RESOURCE_SQL.findVisible(auth, prepared.ids[0]),
    RESOURCE_SQL.pageByKeyset(scope, list, { position: null, backward: false, limit: 20 }),
    RESOURCE_SQL.pageByKeyset(scope, list, { position: prepared.deepPosition, backward: false, limit: 20 }),
    RESOURCE_SQL.pageByKeyset(scope, filtered, { position: null, backward: false, limit: 20 }),
    RESOURCE_SQL.pageByOffset(scope, list, 0, 20),
    EVENT_SQL.listVisible({ userId: prepared.ownerId, isAdmin: false }, 21),
    EVENT_SQL.listVisible({ userId: prepared.newcomerId, isAdmin: false }, 21),
  ];
}

interface Explained {
  plan: string;
  executionMs: number;
  buffers: string;
}

/** EXPLAIN (ANALYZE, BUFFERS) of a statement, the second of two runs (the first warms the cache as the load did). */
async function explain(db: Client, statement: SqlStatement): Promise<Explained> {
  let lines: string[] = [];
  for (let run = 0; run < 2; run++) {
    const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values);
    lines = rows.map((row) => row['QUERY PLAN']);
  }
  const execution = lines.find((line) => line.startsWith('Execution Time')) ?? '';
  const buffers = lines.find((line) => line.trim().startsWith('Buffers:')) ?? '';
  return { plan: lines.join('\n'), executionMs: Number(/([\d.]+) ms/.exec(execution)?.[1] ?? NaN), buffers: buffers.trim().replace(/^Buffers: /, '') };
}

const fmt = (value: number): string => value.toFixed(0);
const rate = (summary: Summary): string => `${fmt(summary.rps)} (${fmt(summary.rpsMin)}-${fmt(summary.rpsMax)})`;

async function main(): Promise<void> {
  if (LARGE_ROWS % RESOURCES_PER_OWNER !== 0 || LARGE_ROWS <= SMALL_ROWS) {
    throw new Error(`BENCH_SCALE_ROWS must be a multiple of ${RESOURCES_PER_OWNER} above ${SMALL_ROWS}`);
  }
  mkdirSync(LOG_DIR, { recursive: true });
  const sizes = [sizeOf(SMALL_ROWS, 0), sizeOf(LARGE_ROWS, 1)];
  const admin = new Client({ connectionString: `${BENCH_DATABASE_SERVER}/postgres` });
  await admin.connect();
  try {
    // The database's own disk is not known from here; the service's usually shares this one.
    const free = Number(spawnSync('df', ['-B1', '--output=avail', '.'], { encoding: 'utf8' }).stdout.split('\n')[1]);
    const needed = ((SMALL_ROWS + LARGE_ROWS) / 1e6) * DISK_BYTES_PER_MILLION_ROWS;
    log(
      `Scale benchmark: ${sizes.map((s) => `${s.label} resources over ${s.owners} owners`).join(' beside ')}; ` +
        `${(free / 1e9).toFixed(0)} GB free on disk, about ${(needed / 1e9).toFixed(0)} GB needed`,
    );
    if (free < needed) throw new Error(`not enough disk for the seed: ${(free / 1e9).toFixed(0)} GB free, ${(needed / 1e9).toFixed(0)} GB needed`);
    const prepared: Prepared[] = [];
    for (const size of sizes) {
      const done = spawnSync(process.execPath, ['dist/apps/api/src/cli.js', 'db:prepare'], { env: size.env, stdio: 'inherit' });
      if (done.status !== 0) throw new Error(`db:prepare failed for ${size.database}`);
      startApi(size);
      await waitFor(`http://127.0.0.1:${size.port}/health/ready`);
      prepared.push(await prepare(size));
    }

    const lines = [
      `Medians of ${ROUNDS} alternating rounds of ${DURATION} s; req/s as median (lowest-highest). ` +
        `Cost = req/s at ${sizes[0].label} / req/s at ${sizes[1].label}.`,
      '',
      `| scenario | ${sizes[0].label} req/s | ${sizes[0].label} p99 ms | ${sizes[1].label} req/s | ${sizes[1].label} p99 ms | cost ${sizes[1].label} / ${sizes[0].label} | p99 ${sizes[1].label} / ${sizes[0].label} | target | met |`,
      '|---|---:|---:|---:|---:|---:|---:|---|---|',
    ];
    const failures: string[] = [];
    for (const scenario of SCENARIOS) {
      // An access token lasts 15 minutes, less than the seed and the run: each scenario logs in again.
      for (const p of prepared) p.headers[scenario.viewer] = await logIn(p.size.port, scenario.viewer);
      const [small, large] = await measureRounds(
        prepared.map((p) => ({ port: p.size.port, paths: scenario.paths(p), headers: p.headers[scenario.viewer] })),
      );
      const cost = small.rps / large.rps;
      const met = !scenario.held || cost <= COST_TARGET;
      lines.push(
        `| ${scenario.name} | ${rate(small)} | ${fmt(small.p99)} | ${rate(large)} | ${fmt(large.p99)} | ${cost.toFixed(2)}x | ${(large.p99 / Math.max(1, small.p99)).toFixed(2)}x | ${
          scenario.held ? `cost <= ${COST_TARGET}x` : '(reported)'
        } | ${met ? 'yes' : 'no'} |`,
      );
      if (small.non2xx + large.non2xx > 0) failures.push(`${scenario.name}: ${small.non2xx} + ${large.non2xx} non-2xx answers`);
      log(`measured ${scenario.name}`);
    }

    const explainLines = ['', `| statement | ${sizes[0].label} ms | ${sizes[1].label} ms | ${sizes[0].label} buffers | ${sizes[1].label} buffers |`, '|---|---:|---:|---|---|'];
    const plans: string[] = [`# EXPLAIN (ANALYZE, BUFFERS) of the scale benchmark's statements (run ${RUN})`, ''];
    const explained: Explained[][] = [];
    for (const p of prepared) {
      const db = new Client({ connectionString: p.size.env.DATABASE_URL });
      await db.connect();
      try {
        const statements = scenarioStatements(p);
        const sizeExplained: Explained[] = [];
        for (const statement of statements) sizeExplained.push(await explain(db, statement));
        explained.push(sizeExplained);
        plans.push(`## ${p.size.label}`, '');
        statements.forEach((statement, index) => {
          plans.push(`### ${SCENARIOS[index].name}`, '', '```sql', statement.text.replace(/\s+/g, ' '), `-- ${JSON.stringify(statement.values)}`, '```', '', '```', explained[explained.length - 1][index].plan, '```', '');
        });
      } finally {
        await db.end();
      }
    }
    SCENARIOS.forEach((scenario, index) => {
      const [small, large] = explained.map((sizeExplained) => sizeExplained[index]);
      explainLines.push(`| ${scenario.name} | ${small.executionMs.toFixed(3)} | ${large.executionMs.toFixed(3)} | ${small.buffers} | ${large.buffers} |`);
    });

    const output = [...lines, ...explainLines].join('\n');
    writeFileSync(`${LOG_DIR}/scale-results.md`, `${output}\n`);
    writeFileSync(`${LOG_DIR}/scale-explain.md`, `${plans.join('\n')}\n`);
    log(`\n${output}\n\nPlans: ${LOG_DIR}/scale-explain.md`);
    if (failures.length > 0) log(`non-2xx answers seen:\n${failures.join('\n')}`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const size of sizes) {
      await admin.query(`DROP DATABASE IF EXISTS "${size.database}" WITH (FORCE)`);
      await deleteRedisKeys(BENCH_REDIS_URL, size.database);
    }
    await admin.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`scale benchmark failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  for (const child of children) child.kill('SIGTERM');
  process.exit(1);
});
