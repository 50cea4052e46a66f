import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import { Sql, SqlStatement } from '@app/database';
import { createSuiteEnvironment, createTestApp, createUser, SuiteEnvironment, TestApp, TestUser } from './support';

/**
 * The filtered lists of decisions §14 are answered from an index each: `GET /v2/events?type=`
 * and `GET /v2/webhooks/{id}/deliveries?status=&event_type=`, among many rows of other kinds,
 * other statuses, other webhooks and other owners, read no table sequentially and walk the
 * index of their filter. The statements are the ones the API runs, recorded as they reach
 * PostgreSQL, then EXPLAINed on ANALYZEd tables. The suite has a database of its own: no other
 * suite lists its seeded rows.
 */
describe('Filtered list plans: events by kind, deliveries by status and kind', () => {
  let suite: SuiteEnvironment;
  let t: TestApp;
  let db: DataSource;
  let user: TestUser;
  let admin: TestUser;
  let webhookId: string;

  const as = (caller: TestUser) => ({ Authorization: `Bearer ${caller.accessToken}` });

  beforeAll(async () => {
    suite = await createSuiteEnvironment('plans');
    Object.assign(process.env, suite.env, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    t = await createTestApp();
    db = t.app.get(DataSource);
    user = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    admin = await createUser(t.http, { db: t.db, plan: 'enterprise', role: 'admin' });
    const other = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    await t.http.post('/v2/resources').set(as(user)).send({ name: 'mine' }).expect(201);
    webhookId = (
      await t.http.post('/v2/webhooks').set(as(user)).send({ url: 'https://hooks.example.com/in', events: ['resource.created'] }).expect(201)
    ).body.data.id;
    const otherHook = (
      await t.http.post('/v2/webhooks').set(as(other)).send({ url: 'https://hooks.example.com/in', events: ['resource.created'] }).expect(201)
    ).body.data.id;
    // 40,000 events, almost all another owner's and of another kind (the user's 400 are
    // deletions); 40,000 deliveries, most of another webhook, the user's mostly succeeded and of
    // another kind. Published, so that no relay acts on them; each carries the user's resource.
    // Seeding is not a request: it runs on a connection of its own, without the request timeouts.
    const seeder = new Client({ connectionString: process.env.DATABASE_URL });
    await seeder.connect();
    try {
      await seeder.query(
        `INSERT INTO events (id, type, owner_id, organization_id, data, created_at, published_at)
         SELECT 'evt_' || upper(substr(md5(random()::text || g), 1, 26)),
                CASE WHEN g % 100 = 0 THEN 'resource.deleted' ELSE 'resource.updated' END,
                CASE WHEN g % 100 = 0 THEN $1 ELSE $2 END, NULL,
                (SELECT data FROM events WHERE owner_id = $1 AND type = 'resource.created' LIMIT 1), now(), now()
           FROM generate_series(1, 40000) g`,
        [user.id, other.id],
      );
      await seeder.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, status, created_at)
         SELECT 'dlv_' || upper(substr(md5(random()::text || g), 1, 26)),
                CASE WHEN g % 4 = 0 THEN $1 ELSE $2 END,
                'evt_' || upper(substr(md5(random()::text || g), 1, 26)),
                CASE WHEN g % 40 = 0 THEN 'resource.deleted' ELSE 'resource.created' END, '{}',
                CASE WHEN g % 80 = 0 THEN 'failed' ELSE 'succeeded' END, now() - g * interval '1 second'
           FROM generate_series(1, 40000) g`,
        [webhookId, otherHook],
      );
      await seeder.query('ANALYZE events');
      await seeder.query('ANALYZE webhook_deliveries');
    } finally {
      await seeder.end();
    }
  }, 90_000);

  afterAll(async () => {
    await t?.close();
    await suite?.destroy();
  });

  /** The plans of the statements on `table` that answering `path` ran. */
  async function plansOf(caller: TestUser, path: string, table: RegExp): Promise<string[]> {
    const recorded: Array<{ sql: string; params: unknown[] }> = [];
    const record = (sql: string, params: unknown[]): void => {
      if (table.test(sql) && /^\s*SELECT/i.test(sql) && !recorded.some((seen) => seen.sql === sql)) recorded.push({ sql, params });
    };
    // Repositories send through Sql, to the pool or a transaction's runner; TypeORM's own queries take the runner.
    const run = Object.getOwnPropertyDescriptor(Sql.prototype, 'run')?.value as (...args: unknown[]) => Promise<unknown>;
    const sqlSpy = jest.spyOn(Sql.prototype, 'run').mockImplementation(function recordedRun(this: Sql, statement: SqlStatement, ...rest: unknown[]) {
      record(statement.text, statement.values);
      return run.call(this, statement, ...rest) as never;
    });
    // The runner's own query, called with each runner as `this`.
    const query = Object.getOwnPropertyDescriptor(PostgresQueryRunner.prototype, 'query')?.value as (...args: unknown[]) => Promise<unknown>;
    const spy = jest.spyOn(PostgresQueryRunner.prototype, 'query').mockImplementation(function recordedQuery(
      this: PostgresQueryRunner,
      sql: string,
      params?: unknown[],
      ...rest: unknown[]
    ) {
      record(sql, params ?? []);
      return query.call(this, sql, params, ...rest) as never;
    });
    try {
      const res = await t.http.get(path).set(as(caller)).expect(200);
      expect(res.body.data.length).toBeGreaterThan(0);
    } finally {
      spy.mockRestore();
      sqlSpy.mockRestore();
    }
    expect(recorded.length).toBeGreaterThan(0);
    const plans: string[] = [];
    for (const { sql, params } of recorded) {
      const rows: Array<{ 'QUERY PLAN': string }> = await db.query(`EXPLAIN ${sql}`, params);
      plans.push(rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    return plans;
  }

  it.each([
    ['one kind', '/v2/events?type=resource.deleted&limit=20'],
    ['several kinds', '/v2/events?type=resource.deleted,resource.created&limit=20'],
  ])("events of %s, for their owner, walk the owner's (owner_id, type, id) index", async (_label, path) => {
    const plans = await plansOf(user, path, /FROM "events"|FROM events/);
    for (const plan of plans) {
      expect(plan).not.toMatch(/Seq Scan on events/);
      expect(plan).toMatch(/events_owner_type_idx/);
    }
  });

  it('events of one kind, for an admin, walk the (type, id) index', async () => {
    for (const plan of await plansOf(admin, '/v2/events?type=resource.deleted&limit=20', /FROM "events"|FROM events/)) {
      expect(plan).not.toMatch(/Seq Scan on events/);
      expect(plan).toMatch(/events_type_idx/);
    }
  });

  // A count by status alone may walk (webhook_id, status, event_type, ...) as well as
  // (webhook_id, status, ...): both lead with the filter's columns, and the planner picks either.
  it.each([
    ['status', 'status=failed', /webhook_deliveries_webhook_status(_type)?_idx/, /Index Cond: .*status = 'failed'/],
    ['event kind', 'event_type=resource.deleted', /webhook_deliveries_webhook_type_idx/, /Index Cond: .*event_type = 'resource\.deleted'/],
    [
      'status and event kind',
      'status=failed&event_type=resource.deleted',
      /webhook_deliveries_webhook_status_type_idx/,
      /Index Cond: .*status = 'failed'.*event_type = 'resource\.deleted'/,
    ],
  ])('deliveries by %s walk their index, page and count', async (_label, query, index, condition) => {
    const plans = await plansOf(user, `/v2/webhooks/${webhookId}/deliveries?${query}&per_page=20&page=2`, /webhook_deliveries/);
    expect(plans.length).toBe(2);
    for (const plan of plans) {
      expect(plan).not.toMatch(/Seq Scan on webhook_deliveries/);
      expect(plan).toMatch(index);
      expect(plan).toMatch(condition);
    }
  });
});
