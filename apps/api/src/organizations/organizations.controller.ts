import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthContext, idPattern, Paginated } from '@app/common';
import { Auth } from '../platform/decorators/auth.decorator';
import { ScopeArea } from '../platform/decorators/scope.decorator';
import { ApiDataResponse, ApiErrors, ApiListResponse } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { OffsetPageMetaView } from '../platform/pagination/page-meta.view';
import { OffsetPageQuery } from '../platform/pagination/offset-page.query';
import { ValidBody, ValidQuery } from '../platform/validation/validated-parameters';
import { AddMemberDto, CreateOrganizationDto, UpdateOrganizationDto } from './dto/organization.dto';
import { OrganizationsService } from './organizations.service';
import { MemberView, OrganizationView } from './organization.view';

const ORGANIZATION_ID = ApiParam({
  name: 'id',
  description: 'An organization id (`org_`); one the caller does not belong to is 404.',
  schema: { type: 'string', pattern: idPattern('org'), example: 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X' },
});

@ApiTag('Organizations')
@ApiBearerAuth()
@ScopeArea('organizations')
@Controller('organizations')
export class OrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listOrganizations',
    summary: 'List organizations',
    description: 'The ones the caller belongs to (every one for platform admins), oldest first.',
  })
  @ApiListResponse(OrganizationView, OffsetPageMetaView)
  @ApiErrors(400, 401, 403, 429)
  list(@Auth() auth: AuthContext, @ValidQuery() query: OffsetPageQuery, @Req() req: Request): Promise<Paginated<OrganizationView>> {
    return this.organizations.list(auth, query, req.path);
  }

  @Post()
  @ApiOperation({
    operationId: 'createOrganization',
    summary: 'Create an organization',
    description: 'The caller becomes its owner. A slug taken in any letter case is 409.',
  })
  @ApiDataResponse(OrganizationView, 201, 'The new organization')
  @ApiErrors(400, 401, 403, 409, 429)
  create(@Auth() auth: AuthContext, @ValidBody() body: CreateOrganizationDto): Promise<OrganizationView> {
    return this.organizations.create(auth, body);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getOrganization', summary: 'Get an organization', description: 'Members of the organization, and platform admins, see it; anyone else gets 404.' })
  @ORGANIZATION_ID
  @ApiDataResponse(OrganizationView)
  @ApiErrors(401, 403, 404, 429)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<OrganizationView> {
    return this.organizations.get(auth, id);
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'updateOrganization',
    summary: 'Rename an organization or change its slug',
    description: 'Needs the role `owner` or `admin` there. A slug taken in any letter case is 409.',
  })
  @ORGANIZATION_ID
  @ApiDataResponse(OrganizationView)
  @ApiErrors(400, 401, 403, 404, 409, 429)
  update(@Auth() auth: AuthContext, @Param('id') id: string, @ValidBody() body: UpdateOrganizationDto): Promise<OrganizationView> {
    return this.organizations.update(auth, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteOrganization',
    summary: 'Delete an organization',
    description: 'Needs the role `owner`. 409 while any resource (soft-deleted ones too) still belongs to it.',
  })
  @ORGANIZATION_ID
  @ApiNoContentResponse({ description: 'Deleted; no body' })
  @ApiErrors(401, 403, 404, 409, 429)
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<void> {
    return this.organizations.delete(auth, id);
  }

  @Get(':id/members')
  @ApiOperation({ operationId: 'listOrganizationMembers', summary: 'List members', description: 'In the order they joined.' })
  @ORGANIZATION_ID
  @ApiListResponse(MemberView, OffsetPageMetaView)
  @ApiErrors(400, 401, 403, 404, 429)
  members(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @ValidQuery() query: OffsetPageQuery,
    @Req() req: Request,
  ): Promise<Paginated<MemberView>> {
    return this.organizations.listMembers(auth, id, query, req.path);
  }

  @Post(':id/members')
  @ApiOperation({
    operationId: 'addOrganizationMember',
    summary: 'Add a member',
    description: 'Needs `owner` or `admin`; only an `owner` adds an `owner`. An unknown user is 404, a member added twice 409.',
  })
  @ORGANIZATION_ID
  @ApiDataResponse(MemberView, 201, 'The new member')
  @ApiErrors(400, 401, 403, 404, 409, 429)
  addMember(@Auth() auth: AuthContext, @Param('id') id: string, @ValidBody() body: AddMemberDto): Promise<MemberView> {
    return this.organizations.addMember(auth, id, body);
  }

  @Delete(':id/members/:user_id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'removeOrganizationMember',
    summary: 'Remove a member',
    description:
      'Needs `owner` or `admin` (only an `owner` removes an `owner`); anyone may remove themselves. ' +
      'The last owner is 409; a non-member 404.',
  })
  @ORGANIZATION_ID
  @ApiParam({ name: 'user_id', description: 'The member (`usr_`).', schema: { type: 'string', pattern: idPattern('usr'), example: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X' } })
  @ApiNoContentResponse({ description: 'Removed; no body' })
  @ApiErrors(401, 403, 404, 409, 429)
  removeMember(@Auth() auth: AuthContext, @Param('id') id: string, @Param('user_id') userId: string): Promise<void> {
    return this.organizations.removeMember(auth, id, userId);
  }
}
