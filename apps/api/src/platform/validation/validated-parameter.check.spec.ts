import { Body, Controller, createParamDecorator, Get, Param, PipeTransform, Post, Query, Type } from '@nestjs/common';
import { MetadataScanner } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { IsInt, IsString, Min, MinLength } from 'class-validator';
import request from 'supertest';
import { findUnvalidatedParameters } from './validated-parameter.check';
import { ValidBody, ValidQuery } from './validated-parameters';
import { ValidationModule } from './validation.module';

class CountDto {
  @IsInt()
  @Min(1)
  count!: number;
}

class SearchDto {
  @IsString()
  @MinLength(1)
  q!: string;
}

/** Has no class-validator rules: not a DTO. */
class Caller {
  userId = 'usr_1';
}

const CurrentCaller = createParamDecorator(() => new Caller());

const seen: unknown[][] = [];
const witnessed: unknown[] = [];

/** Notes what it was given: the raw query, before validation made it a DTO. */
const queryWitness: PipeTransform = {
  transform(value: unknown): unknown {
    witnessed.push(value);
    return value;
  },
};

@Controller('probe')
class ValidatedController {
  @Post(':id')
  create(@CurrentCaller() caller: Caller, @Param('id') id: string, @ValidBody() body: CountDto): void {
    seen.push([caller, id, body]);
  }

  @Get()
  list(@ValidQuery(queryWitness) query: SearchDto, @Query() raw: Record<string, unknown>): void {
    seen.push([query, raw]);
  }
}

@Controller('forgotten')
class UnvalidatedController {
  @Post()
  create(@Body() body: CountDto): void {
    seen.push([body]);
  }

  @Get()
  list(@Query() query: CountDto): void {
    seen.push([query]);
  }
}

function appOf(controller: Type) {
  return Test.createTestingModule({ imports: [ValidationModule], controllers: [controller] }).compile();
}

describe('findUnvalidatedParameters', () => {
  it('names each DTO parameter not declared with @ValidBody() or @ValidQuery(), and nothing else', () => {
    const scanner = new MetadataScanner();
    expect(findUnvalidatedParameters([ValidatedController], scanner)).toEqual([]);
    expect(findUnvalidatedParameters([UnvalidatedController], scanner)).toEqual([
      'UnvalidatedController.create (parameter 1, CountDto)',
      'UnvalidatedController.list (parameter 1, CountDto)',
    ]);
  });
});

describe('ValidatedParameterCheck', () => {
  it('refuses to start an application with an unvalidated DTO parameter', async () => {
    const app = (await appOf(UnvalidatedController)).createNestApplication({ logger: false });
    await expect(app.init()).rejects.toThrow(
      /Every DTO parameter must be declared with @ValidBody\(\) or @ValidQuery\(\); these are not: UnvalidatedController\.create/,
    );
    await app.close();
  });

  it('starts one whose DTO parameters are validated, and validates them', async () => {
    const app = (await appOf(ValidatedController)).createNestApplication({ logger: false });
    await app.init();
    try {
      seen.length = 0;
      witnessed.length = 0;
      await request(app.getHttpServer()).post('/probe/res_1').send({ count: 2 }).expect(201);
      await request(app.getHttpServer()).get('/probe?q=abc').expect(200);
      const [[caller, id, body], [query, raw]] = seen;
      expect(caller).toBeInstanceOf(Caller);
      expect(id).toBe('res_1');
      expect(body).toBeInstanceOf(CountDto);
      expect(query).toBeInstanceOf(SearchDto);
      expect(raw).toEqual({ q: 'abc' });
      expect(witnessed).toHaveLength(1);
      expect(witnessed[0]).not.toBeInstanceOf(SearchDto);
      // Without the service's exception filter, the refusal surfaces as a 500: what matters is that the handler never ran.
      await request(app.getHttpServer()).post('/probe/res_1').send({ count: 0 }).expect(500);
      expect(seen).toHaveLength(2);
    } finally {
      await app.close();
    }
  });
});
