import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '@app/config';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/**
 * The one TypeORM configuration, used by both apps, the CLI and ormconfig.ts. Requests fail fast:
 * connecting, each statement and each lock wait are bounded, and the client gives up only after
 * the server has cancelled (so a statement never outlives the error its request answered).
 * Migrations pass `forMigrations`, since building an index may rightly take long.
 */
export function dataSourceOptions(config: AppConfig, forMigrations = false): DataSourceOptions {
  const timeouts = forMigrations
    ? { connectionTimeoutMillis: config.DATABASE_CONNECT_TIMEOUT_MS }
    : {
        connectionTimeoutMillis: config.DATABASE_CONNECT_TIMEOUT_MS,
        statement_timeout: config.DATABASE_STATEMENT_TIMEOUT_MS,
        lock_timeout: config.DATABASE_LOCK_TIMEOUT_MS,
        query_timeout: config.DATABASE_STATEMENT_TIMEOUT_MS + 1000,
        idle_in_transaction_session_timeout: config.DATABASE_STATEMENT_TIMEOUT_MS * 5,
      };
  return {
    type: 'postgres',
    url: config.DATABASE_URL,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: { max: config.DATABASE_POOL_SIZE, ...timeouts },
  };
}
