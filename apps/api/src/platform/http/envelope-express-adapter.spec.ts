import { CanActivate, Controller, ExecutionContext, Get, Header, HttpCode, INestApplication, Module, Post, Res, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express, Response } from 'express';
import request from 'supertest';
import { Paginated } from '@app/common';
import { answerNotModified } from '../conditional/not-modified';
import { EnvelopeExpressAdapter } from './envelope-express-adapter';
import { captureSends } from '../idempotency/send-capture';

const RECORD = { id: 'res_1', name: 'Zoë "quoted" \u2028', tags: ['a'], nested: { n: 1.5 } };
const sentBodies: unknown[] = [];

/** Captures the sends of its response, as the Idempotency-Key guard does. */
class CapturingGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    captureSends(context.switchToHttp().getResponse<Response>(), (body, send) => {
      sentBodies.push(body);
      return send(body);
    });
    return true;
  }
}

@Controller()
class ProbeController {
  @Get('record')
  record(): typeof RECORD {
    return RECORD;
  }

  @Get('express')
  express(@Res() res: Response): void {
    res.json({ data: RECORD });
  }

  @Get('page')
  page(): Paginated<typeof RECORD> {
    return new Paginated([RECORD], { limit: 1 });
  }

  @Post('created')
  @HttpCode(201)
  created(): typeof RECORD {
    return RECORD;
  }

  @Get('text')
  @Header('Content-Type', 'text/plain')
  text(): typeof RECORD {
    return RECORD;
  }

  @Get('captured')
  @UseGuards(CapturingGuard)
  captured(): typeof RECORD {
    return RECORD;
  }

  @Get('nothing')
  nothing(): undefined {
    return undefined;
  }

  @Get('not-modified')
  notModified(@Res({ passthrough: true }) res: Response): typeof RECORD | undefined {
    return answerNotModified(res, '"v1"');
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('EnvelopeExpressAdapter', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await NestFactory.create(ProbeModule, new EnvelopeExpressAdapter(), { logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app.close();
  });

  it("writes a record's envelope with the very bytes and headers of Express's res.json", async () => {
    const direct = await request(app.getHttpServer()).get('/record').buffer(true);
    const viaExpress = await request(app.getHttpServer()).get('/express').buffer(true);
    expect(direct.status).toBe(200);
    expect(direct.text).toBe(viaExpress.text);
    expect(direct.body).toEqual({ data: RECORD });
    expect(direct.headers['content-type']).toBe(viaExpress.headers['content-type']);
    expect(direct.headers['content-length']).toBe(viaExpress.headers['content-length']);
    expect(direct.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('writes a page as data and meta, and keeps the status the handler declares', async () => {
    const page = await request(app.getHttpServer()).get('/page');
    expect(page.body).toEqual({ data: [RECORD], meta: { limit: 1 } });
    const created = await request(app.getHttpServer()).post('/created');
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ data: RECORD });
  });

  it("leaves HEAD, conditional requests and a handler's own media type to Express", async () => {
    const get = await request(app.getHttpServer()).get('/record');
    const head = await request(app.getHttpServer()).head('/record');
    expect(head.status).toBe(200);
    expect(head.text).toBeUndefined();
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    // Express's freshness check answers `If-None-Match: *` with 304 when no ETag is set.
    const conditional = await request(app.getHttpServer()).get('/record').set('If-None-Match', '*');
    expect(conditional.status).toBe(304);
    const text = await request(app.getHttpServer()).get('/text');
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('sends through the capture of the response, so that it sees the answer', async () => {
    sentBodies.length = 0;
    const captured = await request(app.getHttpServer()).get('/captured');
    expect(captured.body).toEqual({ data: RECORD });
    expect(sentBodies).toEqual([JSON.stringify({ data: RECORD })]);
  });

  it('leaves an answer the handler wrote where it decided it (a 304) alone, with its status', async () => {
    const notModified = await request(app.getHttpServer()).get('/not-modified');
    expect(notModified.status).toBe(304);
    expect(notModified.headers.etag).toBe('"v1"');
    expect(notModified.text).toBe('');
  });

  it('answers nothing with an empty body', async () => {
    const nothing = await request(app.getHttpServer()).get('/nothing');
    expect(nothing.status).toBe(200);
    expect(nothing.text).toBe('');
  });
});

describe("EnvelopeExpressAdapter's HTTP server", () => {
  /** The prototypes of the request and response a listening app's server makes, before Express sees them, and the app's answer. */
  async function prototypesMadeBy(options: { forceCloseConnections?: boolean }) {
    const app = await NestFactory.create(ProbeModule, new EnvelopeExpressAdapter(), { logger: false, ...options });
    try {
      await app.listen(0, '127.0.0.1');
      const server = app.getHttpServer() as Server;
      const made: Array<[object | null, object | null]> = [];
      server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
        made.push([Object.getPrototypeOf(req) as object | null, Object.getPrototypeOf(res) as object | null]);
      });
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/record`);
      const express: Express = app.getHttpAdapter().getInstance();
      const body: unknown = await answer.json();
      return { made, express, status: answer.status, body };
    } finally {
      await app.close();
    }
  }

  it("makes each request and response with Express's own prototypes, so that Express has none to change", async () => {
    const { made, express, status, body } = await prototypesMadeBy({});
    expect(made).toHaveLength(1);
    expect(made[0][0]).toBe(express.request);
    expect(made[0][1]).toBe(express.response);
    expect(status).toBe(200);
    expect(body).toEqual({ data: RECORD });
  });

  it("leaves the server to Nest's adapter where it tracks connections to close them", async () => {
    const { made, status } = await prototypesMadeBy({ forceCloseConnections: true });
    expect(made).toEqual([[IncomingMessage.prototype, ServerResponse.prototype]]);
    expect(status).toBe(200);
  });
});
