import type { ExecutionContext } from '@nestjs/common';
import { PerRouteMemo, RouteTargets } from './per-route-memo';

class BaseController {
  list(this: void): void {}
}
class FirstController extends BaseController {}
class SecondController extends BaseController {}

function contextOf(controller: object, handler: object): ExecutionContext {
  return { getClass: () => controller, getHandler: () => handler } as unknown as ExecutionContext;
}

describe('PerRouteMemo', () => {
  it('derives a value once per route and answers it again without deriving', () => {
    const derive = jest.fn(([handler, controller]: RouteTargets) => `${controller.name}.${handler.name}`);
    const memo = new PerRouteMemo(derive);
    const context = contextOf(FirstController, BaseController.prototype.list);

    expect(memo.get(context)).toBe('FirstController.list');
    expect(memo.get(context)).toBe('FirstController.list');
    expect(derive).toHaveBeenCalledTimes(1);
  });

  it('keeps a handler inherited by two controllers apart, and remembers falsy values too', () => {
    const derive = jest.fn(([, controller]: RouteTargets) => (controller === FirstController ? 0 : 1));
    const memo = new PerRouteMemo(derive);
    const handler = BaseController.prototype.list;

    expect(memo.get(contextOf(FirstController, handler))).toBe(0);
    expect(memo.get(contextOf(SecondController, handler))).toBe(1);
    expect(memo.get(contextOf(FirstController, handler))).toBe(0);
    expect(derive).toHaveBeenCalledTimes(2);
  });

  it('derives every route it is prepared with, and none again on a request', () => {
    const derive = jest.fn(([handler, controller]: RouteTargets) => `${controller.name}.${handler.name}`);
    const memo = new PerRouteMemo(derive);
    memo.prepare([[BaseController.prototype.list, FirstController]]);

    expect(derive.mock.calls.map(([targets]) => targets)).toEqual([[BaseController.prototype.list, FirstController]]);
    expect(memo.get(contextOf(FirstController, BaseController.prototype.list))).toBe('FirstController.list');
    expect(derive).toHaveBeenCalledTimes(1);
  });
});
