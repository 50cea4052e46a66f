import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '@app/config';

export const REDIS = Symbol('REDIS');

/** ioredis options shared by every connection: keys live under the deployment's prefix. */
export function redisOptions(config: AppConfig): { keyPrefix: string; maxRetriesPerRequest: number } {
  return { keyPrefix: `${config.REDIS_PREFIX}:`, maxRetriesPerRequest: 2 };
}

@Injectable()
class RedisShutdown implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** One shared Redis client (commands only; BullMQ opens its own connections). */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig): Redis => new Redis(config.REDIS_URL, redisOptions(config)),
    },
    RedisShutdown,
  ],
  exports: [REDIS],
})
export class RedisModule {}
