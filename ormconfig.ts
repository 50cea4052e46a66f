import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './libs/config/src';
import { dataSourceOptions } from './libs/database/src/data-source-options';

/** The data source the TypeORM CLI uses (`npm run typeorm -- migration:generate ...`), on DATABASE_DIRECT_URL. */
export default new DataSource(dataSourceOptions(loadConfig(), true));
