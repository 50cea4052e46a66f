import { isDeepStrictEqual } from 'node:util';
import { Controller, Get, MiddlewareConsumer, Module, NestModule, Post, Put, Query } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { HttpAdapterHost } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { SkipThrottle } from '@nestjs/throttler';
import { THROTTLER_SKIP } from '@nestjs/throttler/dist/throttler.constants';
import OAuth2Server from '@node-oauth/oauth2-server';
import RefreshTokenGrantType from '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type';
import { plainToInstance, Transform, TransformFnParams, Type } from 'class-transformer';
import { defaultOptions } from 'class-transformer/cjs/constants/default-options.constant';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import express, { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { captureSends } from './idempotency/send-capture';
import { RouteIndex } from './routing/route-index';

/**
 * One canary per framework internal the service relies on (docs/decisions.md, "Framework
 * internals we rely on"): each fails, naming the reliance, when an upgrade changes what it uses.
 */
function relianceHolds(reliance: string, holds: boolean): void {
  if (!holds) throw new Error(`Framework reliance broken: ${reliance}. See docs/decisions.md, "Framework internals we rely on".`);
}

describe('Express', () => {
  it("sends res.json's answer through res.send (send-capture.ts, the Idempotency-Key guard)", async () => {
    const captured: unknown[] = [];
    const app = express();
    app.get('/', (_req, res) => {
      captureSends(res, (body, send) => {
        captured.push(body);
        return send(body);
      });
      res.status(201).json({ data: 1 });
    });
    await request(app).get('/').expect(201);
    relianceHolds('res.json() sends through res.send(), so a capture of res.send sees every JSON answer', captured[0] === '{"data":1}');
  });

  it("writes res.json as JSON.stringify with a UTF-8 JSON Content-Type (envelope-express-adapter.ts's direct write)", async () => {
    const value = { data: { name: 'Zoë "quoted" \u2028', n: 1.5 } };
    const app = express();
    app.get('/', (_req, res) => void res.json(value));
    const answer = await request(app).get('/').buffer(true);
    const json = JSON.stringify(value);
    relianceHolds(
      "res.json() answers exactly JSON.stringify(body), Content-Type 'application/json; charset=utf-8' and its byte length",
      answer.text === json &&
        answer.headers['content-type'] === 'application/json; charset=utf-8' &&
        answer.headers['content-length'] === String(Buffer.byteLength(json)),
    );
  });

  it("makes res.send's 304 from req.fresh, which app.request can redefine (app.setup.ts)", async () => {
    const app = express();
    app.set('etag', false);
    app.get('/', (_req, res) => void res.json({ data: 1 }));
    const beforeRedefinition = await request(app).get('/').set('If-None-Match', '*');
    Object.defineProperty(app.request, 'fresh', { get: () => false });
    const afterRedefinition = await request(app).get('/').set('If-None-Match', '*');
    relianceHolds(
      'res.send() answers 304 when req.fresh is true, and a `fresh` getter defined on app.request decides it',
      beforeRedefinition.status === 304 && afterRedefinition.status === 200,
    );
  });

  it('reads req.query through a getter that an own property shadows (body-parser.middleware.ts)', async () => {
    const descriptor = Object.getOwnPropertyDescriptor(express.request, 'query');
    relianceHolds('req.query is a configurable getter of the request prototype', typeof descriptor?.get === 'function' && descriptor.configurable === true);

    const seen: unknown[] = [];
    @Controller()
    class QueryController {
      @Get()
      read(@Query() query: unknown): void {
        seen.push(query);
      }
    }
    const kept = { kept: 'once' };
    let hadOwnQuery: boolean | undefined;
    const moduleRef = await Test.createTestingModule({ controllers: [QueryController] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    app.use((req: Request, _res: Response, next: NextFunction) => {
      hadOwnQuery = Object.prototype.hasOwnProperty.call(req, 'query');
      Object.defineProperty(req, 'query', { value: kept, writable: true, enumerable: true, configurable: true });
      next();
    });
    await app.init();
    try {
      await request(app.getHttpServer()).get('/?a=1').expect(200);
    } finally {
      await app.close();
    }
    relianceHolds('a request has no own `query` property before the body parser defines one', hadOwnQuery === false);
    relianceHolds("Nest's @Query() reads the request's own `query` property", seen[0] === kept);
  });

  it("keeps its routes in app.router.stack, as RouteIndex reads them (route-index.ts)", async () => {
    @Controller('things')
    class ThingsController {
      @Post('bulk')
      createMany(): void {}

      @Get(':id')
      get(): void {}

      @Put(':id')
      replace(): void {}
    }
    @Module({ controllers: [ThingsController] })
    class ThingsModule implements NestModule {
      configure(consumer: MiddlewareConsumer): void {
        consumer.apply((_req: Request, _res: Response, next: NextFunction) => next()).forRoutes('*');
      }
    }
    const moduleRef = await Test.createTestingModule({ imports: [ThingsModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      const routes = new RouteIndex(app.get(HttpAdapterHost));
      relianceHolds(
        "Express's router stack lists each route's path and methods, layer.match() matches a path, and Nest's middleware routes accept every method",
        JSON.stringify(routes.allowedMethods('/things/bulk')) === '["POST"]' &&
          JSON.stringify(routes.allowedMethods('/things/th_1')) === '["GET","HEAD","PUT"]' &&
          routes.allowedMethods('/nothing/here').length === 0 &&
          routes.isShadowedMethod('PUT', '/Things/Bulk/'),
      );
    } finally {
      await app.close();
    }
  });
});

describe('Nest', () => {
  it('keeps the path of a route handler under PATH_METADATA of @nestjs/common/constants (auth/scope-declaration.check.ts)', () => {
    class Probe {
      @Get('probe')
      route(this: void): void {}

      helper(this: void): void {}
    }
    relianceHolds(
      "@nestjs/common/constants exports PATH_METADATA, the key @Get() and its kin write a handler's path under",
      Reflect.getMetadata(PATH_METADATA, Probe.prototype.route) === 'probe' && Reflect.getMetadata(PATH_METADATA, Probe.prototype.helper) === undefined,
    );
  });

  it("writes @SkipThrottle() as THROTTLER:SKIPdefault (rate-limit/rate-limit.guard.ts)", () => {
    @SkipThrottle()
    class SkippedController {}
    class Probe {
      @SkipThrottle()
      route(this: void): void {}
    }
    relianceHolds(
      "@nestjs/throttler's @SkipThrottle() sets metadata 'THROTTLER:SKIPdefault' to true on the handler or class, the key its throttler.constants name",
      THROTTLER_SKIP === 'THROTTLER:SKIP' &&
        Reflect.getMetadata('THROTTLER:SKIPdefault', Probe.prototype.route) === true &&
        Reflect.getMetadata('THROTTLER:SKIPdefault', SkippedController) === true,
    );
  });
});

describe('@node-oauth/oauth2-server', () => {
  it('has the refresh grant ScopeCheckedRefreshTokenGrant extends (oauth/server/scope-checked-refresh-grant.ts)', () => {
    const methods = ['handle', 'getRefreshToken', 'getScope', 'revokeToken', 'saveToken'];
    relianceHolds(
      'lib/grant-types/refresh-token-grant-type is an AbstractGrantType with handle, getRefreshToken, getScope, revokeToken and saveToken',
      RefreshTokenGrantType.prototype instanceof OAuth2Server.AbstractGrantType &&
        methods.every((method) => typeof (RefreshTokenGrantType.prototype as unknown as Record<string, unknown>)[method] === 'function'),
    );

    const grant = Object.create(RefreshTokenGrantType.prototype) as RefreshTokenGrantType;
    const refreshToken = { refreshToken: 'r', scope: ['resources:read'], client: { id: 'c', grants: [] }, user: {} };
    const beyond = (): string[] => grant.getScope(new OAuth2Server.Request({ method: 'POST', query: {}, headers: {}, body: { scope: 'resources:read resources:write' } }), refreshToken);
    let refusal: unknown;
    try {
      beyond();
    } catch (error) {
      refusal = error;
    }
    relianceHolds("the refresh grant's getScope(request, token) refuses a scope beyond the token's with invalid_scope", refusal instanceof OAuth2Server.InvalidScopeError);
  });

  it('rotates a refresh token in the handle() ScopeCheckedRefreshTokenGrant re-implements', () => {
    // The override replays these steps with the scope check first: a change here must be carried over.
    const handleOfVersion53 =
      "async handle(request, client) { if (!request) { throw new InvalidArgumentError('Missing parameter: `request`'); } " +
      "if (!client) { throw new InvalidArgumentError('Missing parameter: `client`'); } let token; " +
      'token = await this.getRefreshToken(request, client); token = await this.revokeToken(token); ' +
      'const scope = this.getScope(request, token); return this.saveToken(token.user, client, scope); }';
    relianceHolds(
      "the refresh grant's handle() is unchanged since 5.3: compare it with ScopeCheckedRefreshTokenGrant.handle, carry the change over, then update this text",
      RefreshTokenGrantType.prototype.handle.toString().replace(/\s+/g, ' ') === handleOfVersion53,
    );
  });

  it('lets extendedGrantTypes replace its own refresh_token grant (oauth/server/authorization-server.ts)', async () => {
    const handled: string[] = [];
    class ProbeGrant extends OAuth2Server.AbstractGrantType {
      handle(): Promise<OAuth2Server.Token> {
        handled.push('probe');
        return Promise.reject(new OAuth2Server.InvalidGrantError('probe'));
      }
    }
    const client = { id: 'c', grants: ['refresh_token'] };
    const model = {
      getClient: () => Promise.resolve(client),
      getRefreshToken: () => Promise.resolve(false),
      revokeToken: () => Promise.resolve(true),
      saveToken: () => Promise.resolve(false),
      getAccessToken: () => Promise.resolve(false),
    } as unknown as OAuth2Server.RefreshTokenModel;
    const server = new OAuth2Server({
      model,
      requireClientAuthentication: { refresh_token: false },
      extendedGrantTypes: { refresh_token: ProbeGrant },
    });
    const tokenRequest = new OAuth2Server.Request({
      method: 'POST',
      query: {},
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' },
      body: { grant_type: 'refresh_token', client_id: 'c', refresh_token: 'r' },
    });
    await server.token(tokenRequest, new OAuth2Server.Response()).catch(() => undefined);
    relianceHolds('extendedGrantTypes.refresh_token is used instead of the built-in refresh grant', handled.length === 1);
  });
});

describe('class-transformer', () => {
  it("keeps decorators' metadata in cjs/storage and gives transforms cjs/constants' default options (dto-instantiation.ts)", () => {
    class Probe {
      @Type(() => Date)
      @Transform(({ options }: TransformFnParams) => options)
      at: unknown;
    }
    const type = defaultMetadataStorage.findTypeMetadata(Probe, 'at');
    relianceHolds("decorators write to cjs/storage's defaultMetadataStorage", type?.typeFunction() === Date);
    relianceHolds("plainToInstance gives each transform cjs/constants' defaultOptions", isDeepStrictEqual(plainToInstance(Probe, { at: 1 }).at, defaultOptions));
  });
});
