import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { REDIS, RedisClient } from '@app/database';

/** Redis answers PING within the timeout. Terminus has no Redis indicator of its own. */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async pingCheck<Key extends string>(key: Key, timeoutMs: number): Promise<HealthIndicatorResult<Key>> {
    const check = this.indicators.check(key);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      // While Redis is unreachable ioredis queues the command; the timeout answers first.
      const answer = await Promise.race([this.redis.ping(), timeout]);
      if (answer === 'PONG') return check.up();
      return check.down({ message: answer === 'timeout' ? `no answer within ${timeoutMs} ms` : 'unexpected answer' });
    } catch {
      return check.down({ message: 'unreachable' });
    } finally {
      clearTimeout(timer);
    }
  }
}
