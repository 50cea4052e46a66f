import { Controller, Get, Post } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Public } from '../platform/decorators/public.decorator';
import { ScopeArea } from '../platform/decorators/scope.decorator';
import { RouteTable } from '../platform/routing/route-table';
import { findUndeclaredRoutes, ScopeDeclarationCheck } from './scope-declaration.check';

@ScopeArea('resources')
@Controller('declared')
class DeclaredController {
  @Get()
  list(): void {}

  @Public()
  @Post('open')
  open(): void {}

  @ScopeArea(null)
  @Post('any')
  any(): void {}

  /** Not a route: never checked. */
  helper(): void {}
}

@Controller('undeclared')
class UndeclaredController {
  @Public()
  @Get('open')
  open(): void {}

  @Get()
  forgotten(): void {}

  @ScopeArea('users')
  @Post()
  declared(): void {}
}

describe('ScopeDeclarationCheck', () => {
  it('names each route that is neither public nor scoped, and only those', () => {
    const discovery = { getControllers: () => [{ metatype: DeclaredController }, { metatype: UndeclaredController }] } as unknown as DiscoveryService;
    const undeclared = findUndeclaredRoutes(new RouteTable(discovery, new MetadataScanner()).routes(), new Reflector());
    expect(undeclared).toEqual(['UndeclaredController.forgotten']);
  });

  it('makes the application fail to start when a route declares nothing', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [DiscoveryModule],
      controllers: [DeclaredController, UndeclaredController],
      providers: [ScopeDeclarationCheck, RouteTable],
    }).compile();
    await expect(moduleRef.createNestApplication({ logger: false }).init()).rejects.toThrow('UndeclaredController.forgotten');
  });

  it('lets an application whose routes all declare start', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [DiscoveryModule],
      controllers: [DeclaredController],
      providers: [ScopeDeclarationCheck, RouteTable],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await expect(app.init()).resolves.toBe(app);
    await app.close();
  });
});
