import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { Sql, SqlStatement } from '@app/database';
import { createTestApp, createUser, TestApp, TestUser } from './support';

/**
 * The organization visibility predicate keeps list queries on indexes: a member of three
 * organizations, among many rows they cannot see, lists resources (offset and cursor pages)
 * without a sequential scan of resources. The statements are the ones the API runs, recorded
 * as they pass through the data source or the pooled reads, then EXPLAINed on ANALYZEd tables.
 */
describe('Resource list plans under organization visibility', () => {
  let t: TestApp;
  let member: TestUser;
  let db: DataSource;

  const as = (user: TestUser) => ({ Authorization: `Bearer ${user.accessToken}` });

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
    member = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    const other = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    const organizations: string[] = [];
    for (const [user, count] of [[member, 3], [other, 20]] as const) {
      for (let i = 0; i < count; i++) {
        const res = await t.http
          .post('/v2/organizations')
          .set(as(user))
          .send({ name: 'Plan', slug: `plan-${randomBytes(6).toString('hex')}` })
          .expect(201);
        organizations.push(res.body.data.id);
      }
    }
    // 3,000 rows in the member's organizations, 27,000 elsewhere (another owner, other organizations).
    // Seeding is not a request: it runs on a connection of its own, without the app's query timeouts,
    // which a busy machine would otherwise hit.
    const seeder = new Client({ connectionString: process.env.DATABASE_URL });
    await seeder.connect();
    try {
      await seeder.query(
        `INSERT INTO resources (id, owner_id, organization_id, name, created_at)
         SELECT 'res_' || upper(substr(md5(random()::text || g), 1, 26)), $1, ($2::text[])[1 + g % 23],
                'plan ' || g, now() - g * interval '1 second'
         FROM generate_series(1, 30000) g`,
        [other.id, organizations],
      );
      await seeder.query('ANALYZE resources');
      await seeder.query('ANALYZE organization_members');
    } finally {
      await seeder.end();
    }
  }, 60000);

  afterAll(() => t.close());

  async function plansOf(path: string): Promise<string[]> {
    const recorded: Array<{ sql: string; params: unknown[] }> = [];
    const record = (sql: string, params: unknown[] = []): void => {
      if (/FROM resources r/.test(sql)) recorded.push({ sql, params });
    };
    const query = db.query.bind(db);
    const sql = t.app.get(Sql);
    const run = sql.run.bind(sql);
    const spies = [
      jest.spyOn(db, 'query').mockImplementation((sql: string, params?: unknown[]) => {
        record(sql, params);
        return query(sql, params);
      }),
      jest.spyOn(sql, 'run').mockImplementation((statement: SqlStatement, manager?: EntityManager) => {
        record(statement.text, statement.values);
        return run(statement, manager);
      }),
    ];
    try {
      const res = await t.http.get(path).set(as(member)).expect(200);
      expect(res.body.data.length).toBeGreaterThan(0);
    } finally {
      for (const spy of spies) spy.mockRestore();
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
    ['an offset page', '/v2/resources?per_page=20'],
    ['a deep offset page', '/v2/resources?per_page=20&page=100'],
    ['a cursor page', '/v2/resources?limit=20'],
    ['a page sorted by name', '/v2/resources?limit=20&sort=name'],
    ['a filtered page', '/v2/resources?per_page=20&filter[status]=active'],
  ])('%s reads resources through indexes', async (_label, path) => {
    for (const plan of await plansOf(path)) {
      expect(plan).toMatch(/organization_id = ANY/);
      expect(plan).not.toMatch(/Seq Scan on resources/);
    }
  });
});
