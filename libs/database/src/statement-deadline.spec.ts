import { Pool } from 'pg';
import { loadConfig } from '@app/config';
import { StatementDeadline } from './statement-deadline';

const DEADLINE_MS = 200;

describe('StatementDeadline', () => {
  let pool: Pool;

  beforeEach(() => {
    pool = new Pool({ connectionString: loadConfig().DATABASE_URL, max: 2, Client: new StatementDeadline(DEADLINE_MS).Client });
  });
  afterEach(async () => {
    await pool.end();
  });

  it("fails a statement still unanswered at the deadline with pg's 'Query read timeout', and the pool drops its connection", async () => {
    const started = performance.now();
    const failure = await pool.query('SELECT pg_sleep(2)').then(
      () => undefined,
      (error: Error) => error,
    );
    const elapsed = performance.now() - started;
    expect(failure?.message).toBe('Query read timeout');
    expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS);
    expect(elapsed).toBeLessThan(1000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(pool.totalCount).toBe(0);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('fails what is queued behind the late statement on its connection', async () => {
    const client = await pool.connect();
    const late = client.query('SELECT pg_sleep(2)').catch((error: Error) => error.message);
    const queued = client.query('SELECT 1').catch((error: Error) => error.message);
    expect(await late).toBe('Query read timeout');
    expect(await queued).toMatch(/^(Query read timeout|Connection terminated)/);
    client.release(true);
  });

  it('bounds each statement, not a connection that is busy or idle for longer than the deadline', async () => {
    const client = await pool.connect();
    try {
      for (let i = 0; i < 6; i++) await client.query('SELECT pg_sleep(0.06)');
      await new Promise((resolve) => setTimeout(resolve, DEADLINE_MS * 2));
      expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      client.release();
    }
    expect(pool.totalCount).toBe(1);
  });
});
