export * from './data-source-options';
export * from './database.module';
export * from './entities';
export * from './migrations';
export * from './redis/redis.module';
export * from './repositories/event.repository';
export * from './repositories/refresh-token.repository';
export * from './repositories/user.repository';
