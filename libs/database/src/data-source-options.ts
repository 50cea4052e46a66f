import { EventSubscriber } from 'typeorm';
import type { DataSourceOptions, EntitySubscriberInterface, TransactionStartEvent } from 'typeorm';
import type { AppConfig } from '@app/config';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';
import { StatementDeadline } from './statement-deadline';

/**
 * Whether DATABASE_URL is a connection pooler in transaction mode rather than the server: it is
 * when DATABASE_DIRECT_URL names another address. Derived, not a setting of its own, because an
 * operator who puts a pooler in front must name the server for migrations and LISTEN anyway;
 * with the server alone nothing changes, so the single-instance hot path pays nothing.
 */
export function behindConnectionPooler(config: AppConfig): boolean {
  return config.databaseDirectUrl !== config.DATABASE_URL;
}

/** The server-side limits every statement of a request runs under. */
function statementLimits(config: AppConfig): Record<string, number> {
  return {
    statement_timeout: config.DATABASE_STATEMENT_TIMEOUT_MS,
    lock_timeout: config.DATABASE_LOCK_TIMEOUT_MS,
    idle_in_transaction_session_timeout: config.DATABASE_STATEMENT_TIMEOUT_MS * 5,
  };
}

/** The same limits as statements that hold until the end of the transaction they run in. */
export function transactionLimitsStatement(config: AppConfig): string {
  return Object.entries(statementLimits(config))
    .map(([name, value]) => `SET LOCAL ${name} = ${value}`)
    .join('; ');
}

/**
 * Sets the limits at the start of each transaction. A pooler in transaction mode refuses them
 * as startup parameters, and a plain SET would stay on a server connection other clients share;
 * SET LOCAL ends with the transaction. The statements go in one message, so one round trip.
 */
function transactionLimits(statement: string): new () => EntitySubscriberInterface {
  @EventSubscriber()
  class TransactionLimits implements EntitySubscriberInterface {
    async afterTransactionStart({ queryRunner }: TransactionStartEvent): Promise<void> {
      await queryRunner.query(statement);
    }
  }
  return TransactionLimits;
}

/**
 * The one TypeORM configuration, used by both apps, the CLI and ormconfig.ts. Requests fail fast:
 * connecting, each statement and each lock wait are bounded, and the client (StatementDeadline)
 * gives up a second after the server has cancelled (so a statement never outlives the error its
 * request answered).
 * Behind a pooler, transactions set them (SET LOCAL) and the pooled role carries them as its
 * defaults (DatabasePreparer) for statements outside one. (The API's IdempotencyModule adds the
 * write ledger's subscriber at start-up.) Migrations pass `forMigrations`: they run on the server itself
 * (DATABASE_DIRECT_URL) and unbounded, since building an index may rightly take long.
 */
export function dataSourceOptions(config: AppConfig, forMigrations = false): DataSourceOptions {
  const common = {
    type: 'postgres' as const,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    logging: false,
  };
  const connection = { max: config.DATABASE_POOL_SIZE, connectionTimeoutMillis: config.DATABASE_CONNECT_TIMEOUT_MS };
  // Unbounded even where the role has defaults in this database (behind a pooler, see DatabasePreparer).
  const unbounded = { options: '-c statement_timeout=0 -c lock_timeout=0' };
  if (forMigrations) return { ...common, url: config.databaseDirectUrl, extra: { ...connection, ...unbounded } };
  const requests = { ...connection, Client: new StatementDeadline(config.DATABASE_STATEMENT_TIMEOUT_MS + 1000).Client };
  if (behindConnectionPooler(config)) {
    return { ...common, url: config.DATABASE_URL, subscribers: [transactionLimits(transactionLimitsStatement(config))], extra: requests };
  }
  return { ...common, url: config.DATABASE_URL, extra: { ...requests, ...statementLimits(config) } };
}
