import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { Client, Pool, PoolClient, Result } from 'pg';
import type { FieldDef } from 'pg';
import { DataSource } from 'typeorm';
import type { BeforeQueryEvent, EntitySubscriberInterface, QueryResult } from 'typeorm';
import { loadConfig } from '@app/config';
import { dataSourceOptions } from './data-source-options';
import { useCompiledRowMakers } from './pg-row-maker';
import { useRowDescriptionCache } from './row-description-cache';
import { Sql } from './sql';

/**
 * One canary per TypeORM internal the service relies on (docs/decisions.md, "Framework internals
 * we rely on"): each fails, naming the reliance, when an upgrade changes what it uses.
 */
function relianceHolds(reliance: string, holds: boolean): void {
  if (!holds) throw new Error(`Framework reliance broken: ${reliance}. See docs/decisions.md, "Framework internals we rely on".`);
}

describe('TypeORM', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await new DataSource(dataSourceOptions(loadConfig())).initialize();
  });
  afterAll(async () => {
    await dataSource.destroy();
  });

  it("keeps its PostgreSQL driver's pg Pool in driver.master (sql.ts)", async () => {
    const master = (dataSource.driver as unknown as { master?: unknown }).master;
    relianceHolds("the PostgreSQL driver's `master` is the pg Pool its queries use", master instanceof Pool);
    const rows = await new Sql(dataSource).rows<{ answer: number }>({ text: 'SELECT $1::int AS answer', values: [42] });
    relianceHolds("Sql's reads outside a transaction go through that pool", rows.length === 1 && rows[0].answer === 42);
  });

  it('answers query(text, values, true) with the rows and the row count whatever the command (sql.ts)', async () => {
    const runner = dataSource.createQueryRunner();
    try {
      await runner.query('CREATE TEMP TABLE canary (n int)');
      const inserted = (await runner.query('INSERT INTO canary VALUES ($1), ($2)', [1, 2], true)) as QueryResult<unknown>;
      const updated = (await runner.query('UPDATE canary SET n = n + 1 RETURNING n', [], true)) as QueryResult<{ n: number }>;
      relianceHolds(
        "a QueryRunner's structured answer holds `records` and `affected` for an INSERT and an UPDATE alike",
        inserted.affected === 2 && updated.affected === 2 && updated.records.map((row) => row.n).sort().join() === '2,3',
      );
    } finally {
      await runner.release();
    }
    const read = await new Sql(dataSource).run<{ answer: number }>({ text: 'SELECT $1::int AS answer', values: [7] });
    relianceHolds('Sql reads through the pool with the same answer', read.rows[0]?.answer === 7 && read.rowCount === 1);
  });

  it('sends COMMIT through query() between the commit events, and a lone statement outside a transaction (write-ledger.ts)', async () => {
    const seen: string[] = [];
    const watcher: EntitySubscriberInterface = {
      beforeTransactionCommit: () => void seen.push('beforeTransactionCommit'),
      afterTransactionCommit: () => void seen.push('afterTransactionCommit'),
      beforeQuery: ({ query, queryRunner }: BeforeQueryEvent<unknown>) =>
        void seen.push(`${query} (${queryRunner.isTransactionActive ? 'in a transaction' : 'alone'})`),
    };
    dataSource.subscribers.push(watcher);
    try {
      await dataSource.query('SELECT 1');
      await dataSource.transaction((manager) => manager.query('SELECT 2'));
    } finally {
      dataSource.subscribers.splice(dataSource.subscribers.indexOf(watcher), 1);
    }
    relianceHolds(
      'a transaction\'s COMMIT goes through query() between BeforeTransactionCommit and AfterTransactionCommit, and a statement outside one runs with isTransactionActive false',
      JSON.stringify(seen) ===
        JSON.stringify([
          'SELECT 1 (alone)',
          'START TRANSACTION (in a transaction)',
          'SELECT 2 (in a transaction)',
          'beforeTransactionCommit',
          'COMMIT (in a transaction)',
          'afterTransactionCommit',
        ]),
    );
  });

  it("awaits a subscriber's beforeQuery before sending, on the connection the runner's connect() gives (write-ledger.ts)", async () => {
    const seen: string[] = [];
    const marker = `canary_${randomBytes(4).toString('hex')}`;
    const watcher: EntitySubscriberInterface = {
      beforeQuery: async ({ query, queryRunner }: BeforeQueryEvent<unknown>) => {
        if (!query.includes(marker)) return;
        const connection = (await queryRunner.connect()) as PoolClient;
        const { rows } = await connection.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        seen.push(`before on ${rows[0].pid}`);
      },
    };
    dataSource.subscribers.push(watcher);
    try {
      const [row]: Array<{ pid: number }> = await dataSource.query(`SELECT pg_backend_pid() AS pid /* ${marker} */`);
      seen.push(`sent on ${row.pid}`);
    } finally {
      dataSource.subscribers.splice(dataSource.subscribers.indexOf(watcher), 1);
    }
    relianceHolds(
      "query() awaits the promise a subscriber's beforeQuery returns before it sends the statement, and QueryRunner.connect() answers the pg client the statement goes through",
      seen.length === 2 && seen[0].replace('before', 'sent') === seen[1],
    );
  });

  it('answers an UPDATE or DELETE through query() as [rows, row count] (the repositories that count affected rows)', async () => {
    const table = `canary_${randomBytes(4).toString('hex')}`;
    await dataSource.query(`CREATE TABLE ${table} (n int)`);
    try {
      await dataSource.query(`INSERT INTO ${table} (n) VALUES (1), (2)`);
      const updated: unknown = await dataSource.query(`UPDATE ${table} SET n = n + 10 WHERE n = 1 RETURNING n`);
      const inTransaction: unknown = await dataSource.transaction((manager) => manager.query(`DELETE FROM ${table} WHERE n = 2`));
      relianceHolds(
        'DataSource.query() and EntityManager.query() answer an UPDATE or DELETE with [returned rows, affected row count]',
        JSON.stringify(updated) === '[[{"n":11}],1]' && JSON.stringify(inTransaction) === '[[],1]',
      );
    } finally {
      await dataSource.query(`DROP TABLE ${table}`);
    }
  });
});

describe('pg', () => {
  it("keeps a client's statement on the wire in `_activeQuery` and its socket in `connection.stream` (statement-deadline.ts)", async () => {
    const client = new Client({ connectionString: loadConfig().DATABASE_URL });
    await client.connect();
    try {
      const internals = client as unknown as { _activeQuery?: object | null; connection: { stream: unknown } };
      relianceHolds("an idle client's `_activeQuery` is empty", internals._activeQuery == null);
      const answered = client.query('SELECT pg_sleep(0.05)');
      const onTheWire = internals._activeQuery;
      relianceHolds("a statement is the client's `_activeQuery` from its query() call", typeof onTheWire === 'object' && onTheWire !== null);
      await answered;
      relianceHolds('an answered statement leaves `_activeQuery`', internals._activeQuery == null);
      relianceHolds("a client's `connection.stream` is its socket", internals.connection.stream instanceof Socket);
    } finally {
      await client.end();
    }
  });

  it("parses each message through pg-protocol's Parser.prototype.handlePacket and gives a result its RowDescription's fields (row-description-cache.ts)", async () => {
    useRowDescriptionCache();
    const client = new Client({ connectionString: loadConfig().DATABASE_URL });
    await client.connect();
    try {
      const statement = { name: 'row_description_canary', text: `SELECT $1::int AS n, 'x' AS "__proto__", '{"a":[1]}'::jsonb AS doc` };
      const first = await client.query({ ...statement, values: [1] });
      const second = await client.query({ ...statement, values: [2] });
      relianceHolds("a connection's results are described through handlePacket, and carry the description's fields", second.fields === first.fields);
      expect(first.rows[0]).toMatchObject({ n: 1, doc: { a: [1] } });
      expect(second.rows[0]).toMatchObject({ n: 2, doc: { a: [1] } });
      expect(Object.getOwnPropertyDescriptor(second.rows[0], '__proto__')?.value).toBe('x');
      const other = await client.query(`SELECT 'y' AS n`);
      expect(other.fields).not.toBe(first.fields);
      expect(other.rows).toEqual([{ n: 'y' }]);
    } finally {
      await client.end();
    }
  });

  it('describes a result through `Result.prototype.addFields` and makes each of its rows through `Result.prototype.parseRow` (pg-row-maker.ts)', async () => {
    useCompiledRowMakers();
    const methods = Result.prototype as unknown as {
      addFields: (this: object, fields: FieldDef[]) => void;
      parseRow: (this: object, raw: unknown[]) => Record<string, unknown>;
    };
    const { addFields, parseRow } = methods;
    const described: string[][] = [];
    methods.addFields = function describedFields(fields) {
      described.push(fields.map((description) => description.name));
      addFields.call(this, fields);
    };
    methods.parseRow = function markedRow(raw) {
      return { ...parseRow.call(this, raw), row_marker: true };
    };
    const client = new Client({ connectionString: loadConfig().DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<Record<string, unknown>>(`SELECT 1 AS n, 'x' AS "__proto__", '{"a":[1]}'::jsonb AS doc FROM generate_series(1, 2)`);
      relianceHolds(
        'a result calls addFields with its RowDescription and parseRow for each of its rows',
        described.some((names) => names.join() === 'n,__proto__,doc') && rows.length === 2 && rows.every((row) => row.row_marker === true),
      );
      methods.addFields = addFields;
      methods.parseRow = parseRow;
      const made = (await client.query<Record<string, unknown>>(`SELECT 1 AS n, 'x' AS "__proto__", '{"a":[1]}'::jsonb AS doc`)).rows[0];
      expect(Object.keys(made)).toEqual(['n', '__proto__', 'doc']);
      expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(made, '__proto__')?.value).toBe('x');
      expect(made).toMatchObject({ n: 1, doc: { a: [1] } });
      const empty = await client.query('SELECT 1 AS n WHERE false');
      expect(empty.rows).toEqual([]);
      expect(empty.fields.map((description) => description.name)).toEqual(['n']);
    } finally {
      methods.addFields = addFields;
      methods.parseRow = parseRow;
      await client.end();
    }
  });
});
