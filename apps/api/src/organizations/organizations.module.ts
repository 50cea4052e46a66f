import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { MembershipModule } from './membership.module';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsService } from './organizations.service';

@Module({
  imports: [UsersModule, MembershipModule],
  controllers: [OrganizationsController],
  providers: [OrganizationsService],
  exports: [OrganizationsService],
})
export class OrganizationsModule {}
