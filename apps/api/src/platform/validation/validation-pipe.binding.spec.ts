import { Body, Controller, createParamDecorator, Get, Param, Post, Query } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { Test } from '@nestjs/testing';
import { IsInt, Min } from 'class-validator';
import request from 'supertest';
import { AppValidationPipe } from './app-validation.pipe';
import { bindValidationPipe, ValidationPipeBinding } from './validation-pipe.binding';

class CountDto {
  @IsInt()
  @Min(1)
  count!: number;
}

const Caller = createParamDecorator(() => ({ userId: 'usr_1' }));

const seen: unknown[][] = [];

@Controller('probe')
class ProbeController {
  @Post(':id')
  create(@Caller() caller: object, @Param('id') id: string, @Body() body: CountDto, @Query() query: Record<string, unknown>): void {
    seen.push([caller, id, body, query]);
  }

  @Get()
  list(@Query('page') page: number, @Query('sort') sort: string): void {
    seen.push([page, sort]);
  }
}

/** The validation pipes bound to each parameter of a handler, by parameter index. */
function boundPipes(method: keyof ProbeController): Map<number, number> {
  const parameters = Reflect.getMetadata(ROUTE_ARGS_METADATA, ProbeController, method) as Record<string, { index: number; pipes: unknown[] }>;
  return new Map(Object.values(parameters).map((p) => [p.index, p.pipes.filter((pipe) => pipe instanceof AppValidationPipe).length]));
}

describe('bindValidationPipe', () => {
  it('binds the pipe, once, to the parameters it could change or refuse', () => {
    bindValidationPipe([ProbeController], new AppValidationPipe());
    bindValidationPipe([ProbeController], new AppValidationPipe());
    // The caller (custom), the route id and the raw query have nothing to check.
    expect(boundPipes('create')).toEqual(new Map([[0, 0], [1, 0], [2, 1], [3, 0]]));
    expect(boundPipes('list')).toEqual(new Map([[0, 1], [1, 1]]));
  });
});

describe('ValidationPipeBinding', () => {
  it('validates and transforms through the routes of the application', async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [ProbeController], providers: [ValidationPipeBinding] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      seen.length = 0;
      await request(app.getHttpServer()).post('/probe/res_1?x=1').send({ count: 2 }).expect(201);
      await request(app.getHttpServer()).get('/probe?page=3&sort=name').expect(200);
      const [[caller, id, body, query], [page, sort]] = seen;
      expect(caller).toEqual({ userId: 'usr_1' });
      expect(id).toBe('res_1');
      expect(body).toBeInstanceOf(CountDto);
      expect(query).toEqual({ x: '1' });
      expect(page).toBe(3);
      expect(sort).toBe('name');
      // Without the service's exception filter, the refusal surfaces as a 500: what matters is that the handler never ran.
      await request(app.getHttpServer()).post('/probe/res_1').send({ count: 0 }).expect(500);
      expect(seen).toHaveLength(2);
    } finally {
      await app.close();
    }
  });
});
