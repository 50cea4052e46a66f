import { Get, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { OrganizationsService } from '../../organizations/organizations.service';
import { SignedIn, SignedInUser } from '../access/signed-in-user';
import { pageOf } from '../console-form';
import { ConsolePages } from '../console-pages.decorator';
import { consolePaths } from '../console-paths';
import { sendPage } from '../rendering/page-response';
import { organizationPage, organizationsPage } from './organization.pages';

/** Organizations the user belongs to, with their members and roles, as OrganizationsService shows them. */
@ConsolePages('organizations')
export class OrganizationPagesController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Get()
  async list(@SignedIn() user: SignedInUser, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const organizations = await this.organizations.list(user.auth, await pageOf(query), consolePaths.organizations);
    sendPage(res, organizationsPage(user, organizations.data, organizations.meta));
  }

  @Get(':id')
  async show(@SignedIn() user: SignedInUser, @Param('id') id: string, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const organization = await this.organizations.get(user.auth, id);
    const members = await this.organizations.listMembers(user.auth, id, await pageOf(query), consolePaths.organization(id));
    sendPage(res, organizationPage(user, organization, members.data, members.meta));
  }
}
