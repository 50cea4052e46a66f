import { Injectable } from '@nestjs/common';
import type { Pool, QueryResultRow } from 'pg';
import { DataSource, EntityManager, QueryResult, QueryRunner } from 'typeorm';
import { DatabaseCall, inDatabaseSpan } from '@app/telemetry';

/** A statement as a repository sends it: its SQL and positional values. */
export interface SqlStatement {
  text: string;
  values: unknown[];
}

/**
 * A repository's statements, each built by a named function: the names are what the SQL
 * snapshots (`npm run sql:snapshots`) list, so a changed query shows in review.
 */
export type SqlStatements = Record<string, (...args: never[]) => SqlStatement>;

/** What a statement answered: its rows, and how many rows it inserted, updated or deleted. */
export interface SqlOutcome<T> {
  rows: T[];
  rowCount: number;
}

/** Statements that write nothing, as the write ledger tells them (write-ledger.ts). */
const READ_ONLY = /^\s*SELECT\b/i;

/** A statement's first keyword, the operation its span names. */
const OPERATION = /^\s*([A-Za-z]+)/;

/** The database a DataSource connects to, as a statement's span names it. */
type DatabaseTarget = Pick<DatabaseCall, 'namespace' | 'server'>;

/** The database and server of a PostgreSQL DataSource's options: its URL's, else its host, port and database. */
function databaseTarget(options: DataSource['options']): DatabaseTarget {
  if (options.type !== 'postgres') return {};
  if (options.url) {
    const url = new URL(options.url);
    const address = url.hostname.replace(/^\[(.*)\]$/, '$1');
    return { namespace: decodeURIComponent(url.pathname.slice(1)) || undefined, server: { address, port: Number(url.port) || 5432 } };
  }
  return { namespace: options.database, server: options.host ? { address: options.host, port: options.port ?? 5432 } : undefined };
}

/**
 * The one way repositories send SQL. Given the EntityManager of a transaction, a statement runs
 * on that transaction's connection. Outside one, a read goes straight to the pg pool of TypeORM's
 * DataSource (the same connections, pool size and timeouts): `DataSource.query` would also make a
 * QueryRunner for it and broadcast to subscribers, about 30 µs of a 400 µs read. A write outside
 * a transaction takes a QueryRunner, as `DataSource.query` does, so that the write ledger of a
 * keyed request sees it go out and come back (write-ledger.ts).
 */
@Injectable()
export class Sql {
  /** Read from the DataSource's options at the first recorded statement. */
  private target: DatabaseTarget | undefined;

  constructor(private readonly dataSource: DataSource) {}

  async rows<T extends QueryResultRow>(statement: SqlStatement, manager?: EntityManager): Promise<T[]> {
    return (await this.run<T>(statement, manager)).rows;
  }

  /**
   * Sends `statement`, in a span of its own when the work running now is recorded: its text with
   * the placeholders, as sent, never the values.
   */
  run<T extends QueryResultRow>(statement: SqlStatement, manager?: EntityManager): Promise<SqlOutcome<T>> {
    return inDatabaseSpan(() => this.callOf(statement), () => this.send<T>(statement, manager));
  }

  private callOf(statement: SqlStatement): DatabaseCall {
    const target = (this.target ??= databaseTarget(this.dataSource.options));
    const operation = OPERATION.exec(statement.text)?.[1].toUpperCase() ?? 'QUERY';
    // Named rather than spread: a spread copies through the generic path on every statement.
    return { system: 'postgresql', operation, queryText: statement.text, namespace: target.namespace, server: target.server };
  }

  private async send<T extends QueryResultRow>(statement: SqlStatement, manager?: EntityManager): Promise<SqlOutcome<T>> {
    if (manager?.queryRunner) return Sql.through<T>(manager.queryRunner, statement);
    if (!READ_ONLY.test(statement.text)) {
      const runner = this.dataSource.createQueryRunner();
      try {
        return await Sql.through<T>(runner, statement);
      } finally {
        await runner.release();
      }
    }
    // TypeORM types its PostgreSQL driver's pool as `any` and documents it nowhere; it is pg's
    // Pool (docs/decisions.md, "Framework internals we rely on").
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    // Text and values apart: given a config object, pg copies it through property descriptors.
    const result = await pool.query<T>(statement.text, statement.values);
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  }

  /** Runs `work` in one transaction; its statements take the EntityManager it is given. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  private static async through<T>(runner: QueryRunner, statement: SqlStatement): Promise<SqlOutcome<T>> {
    // The structured answer has one shape for every command; the plain one nests an UPDATE's rows.
    const result = (await runner.query(statement.text, statement.values, true)) as QueryResult<T>;
    return { rows: result.records, rowCount: result.affected ?? 0 };
  }
}
