import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RouteIndex } from './route-index';
import { RouteTable } from './route-table';

/**
 * What the app knows of its own routes: the methods of each path, for 405s and the missing-/v2
 * hint, and every route handler, for the values derived from its decorators at start-up.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [RouteIndex, RouteTable],
  exports: [RouteIndex, RouteTable],
})
export class RoutingModule {}
