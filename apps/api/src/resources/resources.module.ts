import { Module } from '@nestjs/common';
import { ResourceCursorCodec } from './resource-cursor';
import { ResourcesController } from './resources.controller';
import { ResourcesService } from './resources.service';

@Module({
  controllers: [ResourcesController],
  providers: [ResourcesService, ResourceCursorCodec],
  exports: [ResourcesService],
})
export class ResourcesModule {}
