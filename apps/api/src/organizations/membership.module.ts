import { Module } from '@nestjs/common';
import { MembershipReader } from './membership-reader.service';
import { OrganizationRepository } from './organization.repository';

/**
 * The membership reader and the organizations' repository, without the organization routes.
 * Other contexts import this module rather than OrganizationsModule: Express and the OpenAPI
 * document take routes in the order modules are found, and importing that one would move its
 * routes. OrganizationsModule imports it too, so that the repository is one instance.
 */
@Module({
  providers: [OrganizationRepository, MembershipReader],
  exports: [OrganizationRepository, MembershipReader],
})
export class MembershipModule {}
