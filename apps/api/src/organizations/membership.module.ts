import { Module } from '@nestjs/common';
import { MembershipReader } from './membership-reader.service';

/**
 * The membership reader without the organization routes. Other contexts import this module
 * rather than OrganizationsModule: Express and the OpenAPI document take routes in the order
 * modules are found, and importing that one would move its routes.
 */
@Module({
  providers: [MembershipReader],
  exports: [MembershipReader],
})
export class MembershipModule {}
