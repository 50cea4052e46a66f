import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { MIGRATIONS, prepareDatabase } from '@app/database';
import { Background, startWorkerProcess } from './doc-blocks';
import {
  createTestApp,
  deleteRedisKeys,
  HttpsReceiver,
  pgbouncerBinary,
  PrivatePgBouncer,
  startHttpsReceiver,
  TestApp,
  waitUntil,
} from './support';

const RUN_URL = new URL(process.env.DATABASE_URL ?? '');
/** A database no other suite knows, created by the preparation this suite checks. */
const DATABASE = `${RUN_URL.pathname.slice(1)}_pgbouncer`;
const PREFIX = `${process.env.REDIS_PREFIX}:pgbouncer`;
const LIMITS_SQL =
  "SELECT current_setting('statement_timeout') AS statement_timeout, current_setting('lock_timeout') AS lock_timeout, " +
  "current_setting('idle_in_transaction_session_timeout') AS idle_in_transaction_session_timeout";

function serverUrl(database: string): string {
  const url = new URL(RUN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

const INSTALLED = pgbouncerBinary() !== undefined;
const TITLE = 'the API and the worker behind PgBouncer in transaction mode';

/**
 * DATABASE_URL names a private PgBouncer (pool_mode = transaction, fewer server connections than
 * the app's pool) and DATABASE_DIRECT_URL the server: requests and the relay's transactions go
 * through the pooler; migrations with their advisory lock, and the worker's LISTEN, go direct.
 */
(INSTALLED ? describe : describe.skip)(INSTALLED ? TITLE : `${TITLE} (skipped: pgbouncer is not installed; scripts/services.sh installs it as root with apt-get)`, () => {
  let bouncer: PrivatePgBouncer;
  let direct: Client;
  let env: Record<string, string>;
  let prepared: string[][];
  let t: TestApp;
  let receiver: HttpsReceiver;
  let worker: Background | undefined;
  let token: string;

  const bearer = (): [string, string] => ['Authorization', `Bearer ${token}`];

  beforeAll(async () => {
    bouncer = await PrivatePgBouncer.start(serverUrl('postgres'));
    env = {
      DATABASE_URL: bouncer.url(DATABASE),
      DATABASE_DIRECT_URL: serverUrl(DATABASE),
      REDIS_PREFIX: PREFIX,
      DATABASE_STATEMENT_TIMEOUT_MS: '1500',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    };
    // What each app does before it serves, here for two replicas starting together.
    const config = loadConfig({ ...process.env, ...env });
    prepared = await Promise.all([prepareDatabase(config), prepareDatabase(config)]);
    direct = new Client({ connectionString: serverUrl(DATABASE) });
    await direct.connect();
    t = await createTestApp({ env });
    receiver = await startHttpsReceiver();
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await receiver?.close();
    await direct?.end();
    await bouncer?.stop();
    const admin = new Client({ connectionString: serverUrl('postgres') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
    await admin.end();
    await deleteRedisKeys(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', PREFIX);
  });

  it('creates and migrates a fresh database through DATABASE_DIRECT_URL, one replica at a time under the lock', async () => {
    const applied = prepared.map((names) => names.length).sort();
    expect(applied).toEqual([0, MIGRATIONS.length]);
    const { rows } = await direct.query<{ count: number }>('SELECT count(*)::int AS count FROM migrations');
    expect(rows[0].count).toBe(MIGRATIONS.length);
  });

  it('registers and logs in, through fetch against the listening API', async () => {
    const credentials = { email: 'pooled@example.com', username: 'pooled', password: 'password-pooled-1' };
    const post = (path: string, body: object) =>
      fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const registered = await post('/v2/auth/register', credentials);
    expect(registered.status).toBe(201);
    const login = await post('/v2/auth/login', { email: credentials.email, password: credentials.password });
    expect(login.status).toBe(200);
    token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    const me = await fetch(`${t.url}/v2/users/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: { email: string } }).data.email).toBe(credentials.email);
  });

  it('creates once under an Idempotency-Key, reads, and updates under If-Match', async () => {
    const create = () => t.http.post('/v2/resources').set(...bearer()).set('Idempotency-Key', 'pooled-create-1').send({ name: 'Pooled' });
    const first = await create().expect(201);
    const again = await create().expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    const path = `/v2/resources/${first.body.data.id}`;

    const read = await t.http.get(path).set(...bearer()).expect(200);
    expect(read.headers.etag).toBe('"1"');
    const updated = await t.http.patch(path).set(...bearer()).set('If-Match', '"1"').send({ name: 'Pooled, renamed' }).expect(200);
    expect(updated.headers.etag).toBe('"2"');
    const stale = await t.http.patch(path).set(...bearer()).set('If-Match', '"1"').send({ name: 'Too late' });
    expect(stale.status).toBe(412);
    expect((await t.http.get(path).set(...bearer()).expect(200)).body.data.name).toBe('Pooled, renamed');
  });

  it('lists every resource by following cursors', async () => {
    for (const name of ['Listed 1', 'Listed 2', 'Listed 3', 'Listed 4']) {
      await t.http.post('/v2/resources').set(...bearer()).send({ name }).expect(201);
    }
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await t.http.get(`/v2/resources?limit=2&sort=name${query}`).set(...bearer()).expect(200);
      names.push(...(page.body.data as { name: string }[]).map((resource) => resource.name));
      cursor = page.body.meta.cursor.next as string | null;
    } while (cursor);
    expect(names).toEqual(['Listed 1', 'Listed 2', 'Listed 3', 'Listed 4', 'Pooled, renamed']);
  });

  it('the worker relays events through its LISTEN on the server and delivers them', async () => {
    const webhook = await t.http
      .post('/v2/webhooks')
      .set(...bearer())
      .send({ url: `https://127.0.0.1:${receiver.port}/pooled`, events: ['resource.created'] })
      .expect(201);
    expect(webhook.body.data.status).toBe('enabled');
    const deliveredObject = (id: string) => () =>
      receiver.received.some((request) => (JSON.parse(request.body) as { data: { object: { id: string } } }).data.object.id === id) ? true : undefined;

    const beforeWorker = await t.http.post('/v2/resources').set(...bearer()).send({ name: 'Before the worker' }).expect(201);
    // Polling only every minute: what arrives sooner than that was woken by a notification.
    worker = await startWorkerProcess({ ...env, NODE_EXTRA_CA_CERTS: receiver.certFile, WEBHOOK_RELAY_INTERVAL_MS: '60000' });
    await waitUntil(deliveredObject(beforeWorker.body.data.id as string));

    const afterWorker = await t.http.post('/v2/resources').set(...bearer()).send({ name: 'After the worker' }).expect(201);
    await waitUntil(deliveredObject(afterWorker.body.data.id as string), 20_000);

    const { rows } = await direct.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN events_committed'", [DATABASE]);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    const pooled = await bouncer.serverPids();
    expect(rows.filter((row) => pooled.includes(row.pid))).toEqual([]);
  }, 90_000);

  it('sets the statement limits in each transaction, and gives the pooled role its own for statements outside one', async () => {
    const dataSource = t.app.get(DataSource);
    const [inTransaction] = await dataSource.transaction((manager) => manager.query(LIMITS_SQL));
    expect(inTransaction).toEqual({ statement_timeout: '1500ms', lock_timeout: '1s', idle_in_transaction_session_timeout: '7500ms' });

    // The role's defaults in this database, set by the preparation: no SET of a transaction leaks.
    const { rows: roleDefaults } = await direct.query<{ setconfig: string[] }>(
      'SELECT setconfig FROM pg_db_role_setting WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) AND setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)',
    );
    expect(roleDefaults.map((row) => [...row.setconfig].sort())).toEqual([['lock_timeout=1000', 'statement_timeout=1500']]);
    const outside = await Promise.all(Array.from({ length: 8 }, () => dataSource.query(LIMITS_SQL)));
    const { rows: serverDefaults } = await direct.query("SELECT current_setting('idle_in_transaction_session_timeout') AS idle");
    for (const [row] of outside) {
      expect(row).toEqual({ statement_timeout: '1500ms', lock_timeout: '1s', idle_in_transaction_session_timeout: serverDefaults[0].idle });
    }
  });

  it('cancels a slow statement and a long lock wait in a transaction on the server', async () => {
    const dataSource = t.app.get(DataSource);
    const started = Date.now();
    await expect(dataSource.transaction((manager) => manager.query('SELECT pg_sleep(10)'))).rejects.toMatchObject({ code: '57014' });
    expect(Date.now() - started).toBeLessThan(5000);

    await direct.query('BEGIN');
    try {
      await direct.query('SELECT name FROM migrations ORDER BY id LIMIT 1 FOR UPDATE');
      const waiting = dataSource.transaction((manager) => manager.query('SELECT name FROM migrations ORDER BY id LIMIT 1 FOR UPDATE'));
      await expect(waiting).rejects.toMatchObject({ code: '55P03' });
    } finally {
      await direct.query('ROLLBACK');
    }
  });

  it('cancels a slow statement outside a transaction on the server, before the client gives up', async () => {
    const started = Date.now();
    await expect(t.app.get(DataSource).query('SELECT pg_sleep(4)')).rejects.toMatchObject({ code: '57014' });
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('answers a read blocked by a lock 503 within the deadline, and leaves no statement waiting on the server', async () => {
    const created = await t.http.post('/v2/resources').set(...bearer()).send({ name: 'Behind a lock' }).expect(201);
    const waitingStatements = async (): Promise<string[]> => {
      const { rows } = await direct.query<{ query: string }>(
        "SELECT query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND wait_event_type = 'Lock'",
      );
      return rows.map((row) => row.query);
    };

    await direct.query('BEGIN');
    try {
      await direct.query('LOCK TABLE resources IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const read = await fetch(`${t.url}/v2/resources/${created.body.data.id}`, { headers: { authorization: `Bearer ${token}` } });
      const elapsedMs = Date.now() - started;
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await read.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
      // The lock wait ends at lock_timeout (1 s), under DATABASE_STATEMENT_TIMEOUT_MS; the client's own bound is 2.5 s.
      expect(elapsedMs).toBeLessThan(2000);

      // Shortly after, while the lock is still held, no statement of the API waits on the server.
      await waitUntil(async () => ((await waitingStatements()).length === 0 ? true : undefined), 1000);
      const ready = await fetch(`${t.url}/health/ready`);
      expect(ready.status).toBe(200);
    } finally {
      await direct.query('ROLLBACK');
    }
  });
});

/**
 * When DATABASE_URL and DATABASE_DIRECT_URL name different roles, the preparation sets the pooled
 * role's defaults from the direct connection if that role may (a superuser here); a role that may
 * not leaves them to an administrator, with a warning, and the process still starts.
 */
describe("the pooled role's limits, set from the direct connection", () => {
  const base = RUN_URL.pathname.slice(1);
  const owner = `${base}_owner`;
  const pooled = `${base}_pooled`;
  const bySuperuser = `${base}_limits_super`;
  const byOwner = `${base}_limits_owner`;
  let admin: Client;

  /** DATABASE_URL as a pooler's address; the preparation reads its role and never connects to it. */
  const pooledUrl = (database: string): string => `postgres://${pooled}@127.0.0.1:1/${database}`;
  const roleDefaults = async (database: string, role: string): Promise<string[]> => {
    const { rows } = await admin.query<{ setconfig: string[] }>(
      'SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase JOIN pg_roles r ON r.oid = s.setrole WHERE d.datname = $1 AND r.rolname = $2',
      [database, role],
    );
    return rows.flatMap((row) => row.setconfig).sort();
  };

  beforeAll(async () => {
    admin = new Client({ connectionString: serverUrl('postgres') });
    await admin.connect();
    await admin.query(`CREATE ROLE "${owner}" LOGIN`);
    await admin.query(`CREATE ROLE "${pooled}" LOGIN`);
    await admin.query(`CREATE DATABASE "${byOwner}" OWNER "${owner}"`);
  });

  afterAll(async () => {
    for (const database of [bySuperuser, byOwner]) await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS "${owner}", "${pooled}"`);
    await admin.end();
  });

  it('gives the role of DATABASE_URL, not the direct one, the statement and lock timeouts in the database', async () => {
    const env = { DATABASE_URL: pooledUrl(bySuperuser), DATABASE_DIRECT_URL: serverUrl(bySuperuser), DATABASE_STATEMENT_TIMEOUT_MS: '1800', DATABASE_LOCK_TIMEOUT_MS: '900' };
    await prepareDatabase(loadConfig({ ...process.env, ...env }));
    expect(await roleDefaults(bySuperuser, pooled)).toEqual(['lock_timeout=900', 'statement_timeout=1800']);
    expect(await roleDefaults(bySuperuser, decodeURIComponent(RUN_URL.username))).toEqual([]);
  });

  it('migrates all the same, with a warning, when the direct role may not set another role\'s defaults', async () => {
    const direct = new URL(serverUrl(byOwner));
    direct.username = owner;
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const applied = await prepareDatabase(loadConfig({ ...process.env, DATABASE_URL: pooledUrl(byOwner), DATABASE_DIRECT_URL: direct.toString() }));
      expect(applied).toHaveLength(MIGRATIONS.length);
      expect(await roleDefaults(byOwner, pooled)).toEqual([]);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining(`ALTER ROLE "${pooled}" IN DATABASE "${byOwner}"`));
    } finally {
      warn.mockRestore();
    }
  });
});
