import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ConflictError } from '@app/common';
import { CreateOrganizationDto } from '../../organizations/dto/organization.dto';
import { OrganizationsService } from '../../organizations/organizations.service';
import type { RenderedPage } from '../../platform/pages/page-layout';
import { FormSubmissions } from '../access/form-submissions';
import { SignedIn, SignedInUser } from '../access/signed-in-user';
import { checkAs, FormFields, pageOf, textOf } from '../console-form';
import { ConsolePages } from '../console-pages.decorator';
import { consolePaths, withNotice } from '../console-paths';
import { seeOther, sendPage } from '../rendering/page-response';
import { OrganizationForm, organizationPage, organizationsPage } from './organization.pages';

/** Organizations the user belongs to, with their members and roles, as OrganizationsService shows them; a new one, with the user as its owner. */
@ConsolePages('organizations')
export class OrganizationPagesController {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly submissions: FormSubmissions,
  ) {}

  @Get()
  async list(@SignedIn() user: SignedInUser, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    sendPage(res, await this.listPage(user, query));
  }

  @Post()
  async create(@SignedIn() user: SignedInUser, @Req() req: Request, @Res() res: Response): Promise<void> {
    const form = req.body as FormFields;
    const values = { name: textOf(form, 'name'), slug: textOf(form, 'slug')?.trim() };
    const checked = await checkAs(CreateOrganizationDto, values);
    if (!checked.valid) {
      sendPage(res, await this.listPage(user, {}, { values, problems: checked.problems }, 400));
      return;
    }
    let created: string;
    try {
      created = await this.submissions.once(user, form, consolePaths.organizations, async () => {
        const organization = await this.organizations.create(user.auth, checked.value);
        return withNotice(consolePaths.organization(organization.id), 'created');
      });
    } catch (error) {
      // A slug already taken is about the form.
      if (!(error instanceof ConflictError)) throw error;
      sendPage(res, await this.listPage(user, {}, { values, problems: error.details ?? [] }, error.status));
      return;
    }
    seeOther(res, created);
  }

  @Get(':id')
  async show(@SignedIn() user: SignedInUser, @Param('id') id: string, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const organization = await this.organizations.get(user.auth, id);
    const members = await this.organizations.listMembers(user.auth, id, await pageOf(query), consolePaths.organization(id));
    sendPage(res, organizationPage(user, { organization, members: members.data, meta: members.meta, notice: query.notice }));
  }

  private async listPage(user: SignedInUser, query: Record<string, unknown>, form?: OrganizationForm, status = 200): Promise<RenderedPage> {
    const organizations = await this.organizations.list(user.auth, await pageOf(query), consolePaths.organizations);
    return organizationsPage(user, { organizations: organizations.data, meta: organizations.meta, form }, status);
  }
}
