import { Global, Module } from '@nestjs/common';
import { RouteIndex } from './route-index';

/** What the app knows of its own routes: the methods of each path, for 405s and the missing-/v2 hint. */
@Global()
@Module({
  providers: [RouteIndex],
  exports: [RouteIndex],
})
export class RoutingModule {}
