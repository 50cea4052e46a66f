import { Module } from '@nestjs/common';
import { MembershipModule } from '../organizations/membership.module';
import { SignedCursorCodec } from '../platform/pagination/signed-cursor.codec';
import { ResourceRepository } from './resource.repository';
import { ResourcesController } from './resources.controller';
import { ResourcesService } from './resources.service';

@Module({
  imports: [MembershipModule],
  controllers: [ResourcesController],
  providers: [ResourceRepository, ResourcesService, SignedCursorCodec],
  exports: [ResourcesService],
})
export class ResourcesModule {}
