/**
 * The floor of the benchmark: a bare Nest 11 app on Express with one controller and nothing
 * else (no guards, interceptors, pipes or request log), answering the measured reads with the
 * baseline's SQL through `pg`. The service over this floor is the price of our own pipeline;
 * the floor over the bare baseline is the price of Nest and Express themselves.
 */
import 'reflect-metadata';
import { Controller, Get, Module, NotFoundException, Param, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Pool } from 'pg';
import { cursorPage, findResource } from './bare-queries';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
const owner = process.env.BENCH_OWNER_ID ?? '';

@Controller('v2/resources')
class FloorController {
  @Get(':id')
  async one(@Param('id') id: string): Promise<{ data: unknown }> {
    const record = await findResource(pool, owner, id);
    if (!record) throw new NotFoundException();
    return { data: record };
  }

  @Get()
  list(@Query('limit') limit: string | undefined, @Query('cursor') cursor: string | undefined): Promise<unknown> {
    return cursorPage(pool, owner, Number(limit ?? 20), cursor ?? null);
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(FloorModule, { logger: false });
  app.disable('x-powered-by');
  app.set('etag', false);
  await app.listen(Number(process.env.PORT ?? 3903), '127.0.0.1');
}

void main();
