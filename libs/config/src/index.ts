export * from './app-config';
export * from './config.module';
export * from './env-file';
export * from './supported-runtime';
