/**
 * The floor of the benchmark: a bare Nest 11 app on Express with one controller and nothing
 * else (no guards, interceptors, pipes or request log), answering the measured routes with the
 * service's own statements through `pg` (`bare-queries.ts`). The service over this floor is the
 * price of our own pipeline; the floor over the bare baseline is the price of Nest and Express
 * themselves. With BENCH_FLOOR_TRACING it records the spans a read of the service records
 * (`floor-tracing.ts`): the price of the tracing SDK itself.
 */
import 'reflect-metadata';
import { Body, Controller, Get, Module, NotFoundException, Param, Post, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { toResourceView } from '../apps/api/src/resources/resource.view';
import { cursorPage, findResource, insertResources, offsetPage, ResourceInput } from './bare-queries';
import { floorServerSpans, inFloorClientSpan, traceFloorStatements } from './floor-tracing';
import { BENCH_MEMORY_PATH } from './process-memory';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
traceFloorStatements(pool, new URL(process.env.DATABASE_URL ?? 'postgres://localhost/postgres').pathname.slice(1));
const owner = process.env.BENCH_OWNER_ID ?? '';

/**
 * With BENCH_FLOOR_REDIS_URL, a read by id first counts itself in Redis in one script call (the
 * least a rate limit shared by every instance costs): the floor of a read that must reach Redis.
 */
const COUNT_SCRIPT = `local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n`;
const counter = process.env.BENCH_FLOOR_REDIS_URL ? new Redis(process.env.BENCH_FLOOR_REDIS_URL) : undefined;
const counterKey = `${process.env.REDIS_PREFIX ?? 'bench'}:floor-count:${owner}`;
counter?.defineCommand('countHit', { numberOfKeys: 1, lua: COUNT_SCRIPT });
const counting = counter as unknown as { countHit(key: string, windowMs: number): Promise<number> } | undefined;
const countHit = (): Promise<unknown> | undefined => {
  if (!counting) return undefined;
  const attributes = { 'db.system.name': 'redis', 'db.operation.name': 'EVALSHA', 'db.query.text': 'EVALSHA' };
  return inFloorClientSpan('EVALSHA', attributes, () => counting.countHit(counterKey, 60_000));
};

@Controller('v2/resources')
class FloorController {
  @Get(':id')
  async one(@Param('id') id: string): Promise<{ data: unknown }> {
    await countHit();
    const record = await findResource(pool, owner, id);
    if (!record) throw new NotFoundException();
    return { data: record };
  }

  @Get()
  list(
    @Query('limit') limit: string | undefined,
    @Query('cursor') cursor: string | undefined,
    @Query('page') page: string | undefined,
    @Query('per_page') perPage: string | undefined,
  ): Promise<unknown> {
    if (page !== undefined) return offsetPage(pool, owner, Number(page), Number(perPage ?? 20));
    return cursorPage(pool, owner, Number(limit ?? 20), cursor ?? null);
  }

  @Post()
  async create(@Body() input: ResourceInput): Promise<{ data: unknown }> {
    const [record] = await insertResources(pool, owner, [input]);
    return { data: toResourceView(record) };
  }

  @Post('bulk')
  async createMany(@Body() body: { resources: ResourceInput[] }): Promise<{ data: unknown[]; meta: { count: number } }> {
    const records = await insertResources(pool, owner, body.resources);
    return { data: records.map(toResourceView), meta: { count: records.length } };
  }
}

/** Read by the benchmark between requests of the load; not a route the service has. */
@Controller()
class MemoryController {
  @Get(BENCH_MEMORY_PATH)
  memory(): NodeJS.MemoryUsage {
    return process.memoryUsage();
  }
}

@Module({ controllers: [FloorController, MemoryController] })
class FloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(FloorModule, { logger: false });
  app.disable('x-powered-by');
  const serverSpans = floorServerSpans();
  if (serverSpans) app.use(serverSpans);
  app.set('etag', false);
  await app.listen(Number(process.env.PORT ?? 3903), '127.0.0.1');
}

void main();
