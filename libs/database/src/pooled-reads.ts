import { Injectable } from '@nestjs/common';
import type { Pool, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import type { SqlStatement } from './sql';

export type { SqlStatement } from './sql';

/**
 * Reads of the hottest routes, sent straight to the pg pool of TypeORM's DataSource: the same
 * connections, pool size and timeouts. `DataSource.query` also makes a QueryRunner per statement,
 * takes and releases the connection through it and broadcasts to subscribers before and after,
 * about 30 µs of a 400 µs read. Only single statements outside a transaction belong here.
 * Repositories send through Sql, which does the same and runs statements in a transaction too;
 * TransactionStatuses still reads through this one.
 */
@Injectable()
export class PooledReads {
  constructor(private readonly dataSource: DataSource) {}

  async rows<T extends QueryResultRow>(statement: SqlStatement): Promise<T[]> {
    // TypeORM types its PostgreSQL driver's pool as `any` and documents it nowhere; it is pg's
    // Pool (docs/decisions.md, "Framework internals we rely on").
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    // Text and values apart: given a config object, pg copies it through property descriptors.
    const result = await pool.query<T>(statement.text, statement.values);
    return result.rows;
  }
}
