import { Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Put, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOperation, ApiQuery } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthContext, Paginated } from '@app/common';
import { Auth } from '../platform/decorators/auth.decorator';
import { ScopeArea } from '../platform/decorators/scope.decorator';
import { ApiErrors, ApiListResponse } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { CursorPageMetaView, OffsetPageMetaView } from '../platform/pagination/page-meta.view';
import { ValidBody, ValidQuery } from '../platform/validation/validated-parameters';
import { BulkCreateResourcesDto, BulkUpdateResourcesDto } from './dto/bulk-resources.dto';
import { CreateResourceDto } from './dto/create-resource.dto';
import { DeleteResourceQueryDto } from './dto/delete-resource.query';
import { ReplaceResourceDto } from './dto/replace-resource.dto';
import { ResourceFieldsQueryDto } from './dto/resource-fields.query';
import { ResourceListQueryDto } from './dto/resource-list.query';
import { PatchResourceDto } from './dto/update-resource.dto';
import { answerNotModified } from '../platform/conditional/not-modified';
import { entityTag, ifNoneMatchMatches } from './entity-tag';
import { OnePaginationStylePipe, requestedFields, toResourceListQuery } from './resource-list-query';
import {
  ApiBulkResponse,
  ApiIfMatch,
  ApiIfNoneMatch,
  ApiListQueries,
  ApiResourceId,
  ApiResourceResponse,
  FIELDS_QUERY,
} from './resources.openapi';
import { ResourceListEntry, ResourcesService, VersionedView } from './resources.service';
import { ResourceFieldsView, ResourceProjectionView, ResourceView } from './resource.view';

@ApiTag('Resources')
@ApiBearerAuth()
@ScopeArea('resources')
@Controller('resources')
export class ResourcesController {
  constructor(private readonly resources: ResourcesService) {}

  @Get()
  @ApiOperation({
    operationId: 'listResources',
    summary: 'List resources',
    description:
      'Offset pagination (`page`, `per_page`) by default; cursor pagination when `cursor` or `limit` is given. ' +
      'Mixing the two is `invalid_request`. Cursors are signed, opaque and bound to the filters and sort they came from.',
  })
  @ApiListQueries()
  @ApiListResponse(
    ResourceProjectionView,
    [OffsetPageMetaView, CursorPageMetaView],
    200,
    'A page of resources in the list form, or `id` and the requested `fields`; `meta` of the pagination style used',
  )
  @ApiErrors(400, 401, 403, 429)
  list(
    @Auth() auth: AuthContext,
    @ValidQuery(new OnePaginationStylePipe()) query: ResourceListQueryDto,
  ): Promise<Paginated<ResourceListEntry>> {
    return this.resources.list(auth, toResourceListQuery(query));
  }

  @Post()
  @ApiOperation({
    operationId: 'createResource',
    summary: 'Create a resource',
    description: 'Status is `active`; the caller is its owner. `organization_id` puts it in an organization where the caller is at least a `member`. Emits `resource.created`.',
  })
  @ApiResourceResponse(201, 'The new resource')
  @ApiErrors(400, 401, 403, 404, 409, 422, 429)
  async create(
    @Auth() auth: AuthContext,
    @ValidBody() body: CreateResourceDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ResourceView> {
    return withETag(res, await this.resources.create(auth, body));
  }

  @Post('bulk')
  @ApiOperation({
    operationId: 'bulkCreateResources',
    summary: 'Create up to 100 resources at once',
    description: 'All or nothing: one bad item fails the request (`details` like `resources[3].name`). One `resource.created` per resource.',
  })
  @ApiBulkResponse(201, 'The new resources, in the order given')
  @ApiErrors(400, 401, 403, 404, 409, 422, 429)
  async createMany(@Auth() auth: AuthContext, @ValidBody() body: BulkCreateResourcesDto): Promise<Paginated<ResourceView>> {
    return bulkResult(await this.resources.createMany(auth, body.resources));
  }

  @Patch('bulk')
  @ApiOperation({
    operationId: 'bulkUpdateResources',
    summary: 'Apply the same changes to up to 100 resources',
    description:
      'All or nothing: an id that is unknown or not visible fails the request with 404 naming it; ' +
      'metadata merges as in PATCH. One `resource.updated` per changed resource.',
  })
  @ApiBulkResponse(200, 'The resources after the change, in the order of `ids`')
  @ApiErrors(400, 401, 403, 404, 409, 422, 429)
  async updateMany(@Auth() auth: AuthContext, @ValidBody() body: BulkUpdateResourcesDto): Promise<Paginated<ResourceView>> {
    return bulkResult(await this.resources.updateMany(auth, body.ids, body.updates));
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getResource',
    summary: 'Get a resource',
    description: 'Answers 304 without a body when `If-None-Match` lists the current ETag.',
  })
  @ApiResourceId()
  @ApiQuery(FIELDS_QUERY)
  @ApiIfNoneMatch()
  @ApiResourceResponse(200, 'The resource (or the requested fields and id)', ResourceProjectionView)
  @ApiErrors(400, 401, 403, 404, 429)
  async get(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @ValidQuery() query: ResourceFieldsQueryDto,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ResourceFieldsView | undefined> {
    const result = await this.resources.get(auth, id, requestedFields(query.fields));
    // Evaluated here, whatever the request's Cache-Control: Express's own freshness check
    // ignores If-None-Match when a browser or fetch sends `Cache-Control: no-cache`.
    if (ifNoneMatchMatches(ifNoneMatch, result.version)) return answerNotModified(res, entityTag(result.version));
    return withETag(res, result);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'replaceResource',
    summary: 'Replace a resource',
    description:
      'Sets name, description, type, tags and metadata; omitted optional fields go back to their defaults; status is kept. ' +
      'Emits `resource.updated` when something changed.',
  })
  @ApiResourceId()
  @ApiIfMatch()
  @ApiResourceResponse(200, 'The resource after the change')
  @ApiErrors(400, 401, 403, 404, 412, 429)
  async replace(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @ValidBody() body: ReplaceResourceDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ResourceView> {
    return withETag(res, await this.resources.replace(auth, id, body, ifMatch));
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'updateResource',
    summary: 'Update part of a resource',
    description:
      'Any subset of name, description, type, status, tags, metadata; metadata is a JSON Merge Patch (RFC 7396). ' +
      'Emits `resource.updated` with the prior values of the changed fields.',
  })
  @ApiResourceId()
  @ApiIfMatch()
  @ApiResourceResponse(200, 'The resource after the change')
  @ApiErrors(400, 401, 403, 404, 409, 412, 422, 429)
  async update(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @ValidBody() body: PatchResourceDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ResourceView> {
    return withETag(res, await this.resources.update(auth, id, body, ifMatch));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Done; no body' })
  @ApiOperation({
    operationId: 'deleteResource',
    summary: 'Delete a resource',
    description:
      'Soft by default: the resource is then 404 everywhere and left out of lists. `hard=true` removes the row, ' +
      'also of a soft-deleted resource. Emits `resource.deleted` (not again for a hard delete after a soft one).',
  })
  @ApiResourceId()
  @ApiQuery({
    name: 'hard',
    required: false,
    enum: ['true', 'false'],
    description: '`true` removes the row, also of a resource already soft-deleted (its owner, or an organization `owner` or `admin`).',
  })
  @ApiIfMatch()
  @ApiErrors(400, 401, 403, 404, 412, 429)
  remove(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @ValidQuery() query: DeleteResourceQueryDto,
    @Headers('if-match') ifMatch: string | undefined,
  ): Promise<void> {
    return this.resources.remove(auth, id, query.hard === 'true', ifMatch);
  }
}

function withETag<T>(res: Response, result: VersionedView<T>): T {
  res.setHeader('ETag', entityTag(result.version));
  return result.view;
}

function bulkResult(views: ResourceView[]): Paginated<ResourceView> {
  return new Paginated(views, { count: views.length });
}
