import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '@app/config';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** The one TypeORM configuration, used by both apps, the CLI and ormconfig.ts. */
export function dataSourceOptions(config: AppConfig): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.DATABASE_URL,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: { max: config.DATABASE_POOL_SIZE },
  };
}
