import { Get } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { RouteTable } from './route-table';

class BaseController {
  @Get('inherited')
  inherited(this: void): void {}
}

class RoutedController extends BaseController {
  @Get('one')
  one(this: void): void {}

  helper(this: void): void {}
}

describe('RouteTable', () => {
  it('lists every route handler of the app controllers, inherited ones too, with its controller, and no other method', () => {
    const getControllers = jest.fn(() => [{ metatype: RoutedController }, { metatype: null }]);
    const table = new RouteTable({ getControllers } as unknown as DiscoveryService, new MetadataScanner());

    expect(table.routes()).toEqual(
      expect.arrayContaining([
        [RoutedController.prototype.one, RoutedController],
        [BaseController.prototype.inherited, RoutedController],
      ]),
    );
    expect(table.routes()).toHaveLength(2);
    expect(getControllers).toHaveBeenCalledTimes(1);
  });
});
