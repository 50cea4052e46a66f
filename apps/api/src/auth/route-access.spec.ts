import { Controller, ExecutionContext, Get } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { Public } from '../platform/decorators/public.decorator';
import { ScopeArea } from '../platform/decorators/scope.decorator';
import { RouteTable } from '../platform/routing/route-table';
import { UserLoginOnly } from './decorators/user-login-only.decorator';
import { RouteAccessReader } from './route-access';

@ScopeArea('resources')
@Controller('things')
class ThingsController {
  @Get()
  list(this: void): void {}

  @Get('mine')
  @UserLoginOnly()
  mine(this: void): void {}
}

@Public()
@Controller('open')
class OpenController {
  @Get()
  read(this: void): void {}
}

const contextOf = (controller: object, handler: object): ExecutionContext =>
  ({ getClass: () => controller, getHandler: () => handler }) as unknown as ExecutionContext;

describe('RouteAccessReader', () => {
  it("reads every route's access rules at start-up, and reads no decorator through the Reflector on a request", () => {
    const reflector = new Reflector();
    const discovery = { getControllers: () => [{ metatype: ThingsController }, { metatype: OpenController }] } as unknown as DiscoveryService;
    const reader = new RouteAccessReader(reflector, new RouteTable(discovery, new MetadataScanner()));
    const reads = jest.spyOn(reflector, 'getAllAndOverride');
    reader.onModuleInit();
    const readTargets = new Set(reads.mock.calls.map(([, targets]) => (targets as unknown[]).join()));
    expect(readTargets.size).toBe(3);
    expect(reads).toHaveBeenCalledWith(expect.anything(), [ThingsController.prototype.list, ThingsController]);
    expect(reads).toHaveBeenCalledWith(expect.anything(), [ThingsController.prototype.mine, ThingsController]);
    expect(reads).toHaveBeenCalledWith(expect.anything(), [OpenController.prototype.read, OpenController]);

    reads.mockClear();
    expect(reader.of(contextOf(ThingsController, ThingsController.prototype.list))).toEqual({
      isPublic: false,
      acceptsLegacyToken: false,
      acceptsClientBasic: false,
      userLoginOnly: false,
      scopeArea: 'resources',
    });
    expect(reader.of(contextOf(ThingsController, ThingsController.prototype.mine))).toMatchObject({ userLoginOnly: true, scopeArea: 'resources' });
    expect(reader.of(contextOf(OpenController, OpenController.prototype.read))).toMatchObject({ isPublic: true });
    expect(reads).not.toHaveBeenCalled();
  });
});
