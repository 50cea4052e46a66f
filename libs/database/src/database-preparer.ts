import { Injectable } from '@nestjs/common';
import { Client, DatabaseError } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { dataSourceOptions } from './data-source-options';

const INVALID_CATALOG_NAME = '3D000';
/** A database of that name exists; when two CREATE DATABASE race, the loser gets a unique violation. */
const DATABASE_TAKEN = new Set(['42P04', '23505']);
const MIGRATION_LOCK = 'rms:migrations';

/**
 * Brings the database of DATABASE_URL to the current schema; every step may run again. The
 * CLI's `db:prepare` and both apps at start use it, so a process never serves an old schema.
 */
@Injectable()
export class DatabasePreparer {
  constructor(private readonly config: AppConfig) {}

  /** Creates the database when it is missing; false when it already existed. */
  async ensureDatabase(): Promise<boolean> {
    // Connecting first means a managed database that exists needs no rights on `postgres`.
    if (await this.databaseExists()) return false;
    const target = new URL(this.config.DATABASE_URL);
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
   * Runs pending migrations and returns their names. An advisory lock, held on a connection of
   * its own, makes replicas that start together wait for one another instead of racing.
   */
  async migrate(): Promise<string[]> {
    const lock = new Client({ connectionString: this.config.DATABASE_URL });
    await lock.connect();
    const dataSource = new DataSource(dataSourceOptions(this.config, true));
    try {
      await lock.query('SELECT pg_advisory_lock(hashtext($1))', [MIGRATION_LOCK]);
      await dataSource.initialize();
      const applied = await dataSource.runMigrations();
      return applied.map((migration) => migration.name);
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await lock.end();
    }
  }

  databaseName(): string {
    return decodeURIComponent(new URL(this.config.DATABASE_URL).pathname.slice(1));
  }

  private async databaseExists(): Promise<boolean> {
    const client = new Client({ connectionString: this.config.DATABASE_URL });
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

/** Creates the database when missing and runs pending migrations, before a process serves. */
export async function prepareDatabase(config: AppConfig): Promise<string[]> {
  const preparer = new DatabasePreparer(config);
  await preparer.ensureDatabase();
  return preparer.migrate();
}
