import { Injectable, Type } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { RouteTargets } from './per-route-memo';

/**
 * Every route of the app's controllers, as the Reflector reads a route's metadata from it (its
 * handler, own or inherited, then its controller): what the per-route memos derive their values
 * from at start-up. Walked once, at its first use, when every module has been scanned.
 */
@Injectable()
export class RouteTable {
  private walked: readonly RouteTargets[] | undefined;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  routes(): readonly RouteTargets[] {
    this.walked ??= this.walk();
    return this.walked;
  }

  private walk(): RouteTargets[] {
    const routes: RouteTargets[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype;
      if (typeof controller !== 'function') continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        routes.push([handler, controller as Type<unknown>]);
      }
    }
    return routes;
  }
}
