import { Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, DatabaseError } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { behindConnectionPooler, dataSourceOptions } from './data-source-options';

const INVALID_CATALOG_NAME = '3D000';
/** A database of that name exists; when two CREATE DATABASE race, the loser gets a unique violation. */
const DATABASE_TAKEN = new Set(['42P04', '23505']);
const INSUFFICIENT_PRIVILEGE = '42501';
const MIGRATION_LOCK = 'rms:migrations';
/** How often a replica that finds the migration lock taken tries again. */
const LOCK_RETRY_MS = 200;

/**
 * Brings the database to the current schema; every step may run again. The CLI's `db:prepare`
 * and both apps at start use it, so a process never serves an old schema. It works on the server
 * itself (DATABASE_DIRECT_URL): a pooler in transaction mode would not keep the advisory lock.
 */
@Injectable()
export class DatabasePreparer {
  private readonly logger = new Logger(DatabasePreparer.name);

  constructor(private readonly config: AppConfig) {}

  /** Creates the database when it is missing; false when it already existed. */
  async ensureDatabase(): Promise<boolean> {
    // Connecting first means a managed database that exists needs no rights on `postgres`.
    if (await this.databaseExists()) return false;
    const target = new URL(this.config.databaseDirectUrl);
    const maintenance = new URL(target);
    maintenance.pathname = '/postgres';
    const client = new Client({ connectionString: maintenance.toString() });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(this.databaseName())}`);
      return true;
    } catch (error) {
      // Another replica created it between our check and now.
      if (error instanceof DatabaseError && DATABASE_TAKEN.has(error.code ?? '')) return false;
      throw error;
    } finally {
      await client.end();
    }
  }

  /**
   * Runs pending migrations and returns their names; behind a pooler, then gives the pooled role
   * its limits. An advisory lock, held on a connection of its own, makes replicas that start
   * together wait for one another instead of racing (two ALTER ROLE of one role would collide).
   */
  async migrate(): Promise<string[]> {
    const lock = new Client({ connectionString: this.config.databaseDirectUrl });
    await lock.connect();
    const dataSource = new DataSource(dataSourceOptions(this.config, true));
    try {
      await takeLock(lock, MIGRATION_LOCK);
      await dataSource.initialize();
      const applied = await dataSource.runMigrations();
      if (behindConnectionPooler(this.config)) await this.limitPooledRole(lock);
      return applied.map((migration) => migration.name);
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await lock.end();
    }
  }

  /**
   * A pooler in transaction mode takes no startup parameters, so a statement outside a
   * transaction would have no server-side deadline: the role of DATABASE_URL gets
   * `statement_timeout` and `lock_timeout` as its defaults in this database, which new server
   * connections take up; a transaction's SET LOCAL still wins. Setting one's own defaults needs
   * no privilege; another role's needs CREATEROLE, and without it the operator sets them
   * (docs/operations.md, "Behind a connection pooler").
   */
  private async limitPooledRole(direct: Client): Promise<void> {
    const pooledUser = decodeURIComponent(new URL(this.config.DATABASE_URL).username);
    const role = pooledUser === '' ? 'CURRENT_USER' : direct.escapeIdentifier(pooledUser);
    const target = `ALTER ROLE ${role} IN DATABASE ${direct.escapeIdentifier(this.databaseName())}`;
    try {
      await direct.query(
        `${target} SET statement_timeout = ${this.config.DATABASE_STATEMENT_TIMEOUT_MS}; ${target} SET lock_timeout = ${this.config.DATABASE_LOCK_TIMEOUT_MS}`,
      );
    } catch (error) {
      if (!(error instanceof DatabaseError && error.code === INSUFFICIENT_PRIVILEGE)) throw error;
      this.logger.warn(`${target}: ${error.message}; statements outside a transaction through the pooler have no server-side deadline until an administrator sets it`);
    }
  }

  databaseName(): string {
    return decodeURIComponent(new URL(this.config.databaseDirectUrl).pathname.slice(1));
  }

  private async databaseExists(): Promise<boolean> {
    const client = new Client({ connectionString: this.config.databaseDirectUrl });
    try {
      await client.connect();
      return true;
    } catch (error) {
      if (error instanceof DatabaseError && error.code === INVALID_CATALOG_NAME) return false;
      throw error;
    } finally {
      await client.end();
    }
  }
}

/**
 * Takes a session advisory lock, trying again while another session holds it. Waiting inside
 * pg_advisory_lock would hold a snapshot for the whole wait, and a migration that builds an index
 * CONCURRENTLY waits for every older snapshot: the holder would wait for the waiter, for ever.
 */
async function takeLock(client: Client, name: string): Promise<void> {
  const attempt = () => client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS taken', [name]);
  while (!(await attempt()).rows[0].taken) await sleep(LOCK_RETRY_MS);
}

/** Creates the database when missing and runs pending migrations, before a process serves. */
export async function prepareDatabase(config: AppConfig): Promise<string[]> {
  const preparer = new DatabasePreparer(config);
  await preparer.ensureDatabase();
  return preparer.migrate();
}
