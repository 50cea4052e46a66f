import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { RedisOptions } from 'ioredis';
import { AppConfig } from '@app/config';
import { isTracingOn } from '@app/telemetry';
import { connectRedis, RedisClient } from './redis-client';
import { traceRedisCommands } from './redis-spans';

export const REDIS = Symbol('REDIS');

/**
 * ioredis options of the command client: keys live under the deployment's prefix, and a
 * command that Redis does not answer in time (stopped, frozen, unreachable) fails instead of
 * waiting, so that a request can answer 503 at once.
 */
function redisOptions(config: AppConfig): RedisOptions {
  return {
    keyPrefix: `${config.REDIS_PREFIX}:`,
    maxRetriesPerRequest: 1,
    commandTimeout: config.REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: config.REDIS_COMMAND_TIMEOUT_MS * 2,
  };
}

@Injectable()
class RedisShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly config: AppConfig,
  ) {}

  /**
   * Resolves once the connection has ended (QUIT's reply comes before the socket closes), or
   * after a command timeout: a client between reconnections has no socket to close.
   */
  async onApplicationShutdown(): Promise<void> {
    if (this.redis.status === 'end') return;
    // An 'error' while it closes ends the wait too: the client is going either way.
    const ended = once(this.redis, 'end').catch(() => undefined);
    await this.redis.quit().catch(() => this.redis.disconnect());
    await Promise.race([ended, delay(this.config.REDIS_COMMAND_TIMEOUT_MS, undefined, { ref: false })]);
  }
}

/**
 * One shared Redis client (commands only; BullMQ opens its own connections), whose commands are
 * spans of the requests and jobs that send them while tracing is on.
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig): RedisClient => {
        const client = connectRedis(config, redisOptions(config));
        return isTracingOn() ? traceRedisCommands(client) : client;
      },
    },
    RedisShutdown,
  ],
  exports: [REDIS],
})
export class RedisModule {}
