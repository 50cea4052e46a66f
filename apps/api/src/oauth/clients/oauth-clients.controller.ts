import { Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiNoContentResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthContext, idPattern, Paginated } from '@app/common';
import { UserLoginOnly } from '../../auth/decorators/user-login-only.decorator';
import { Auth } from '../../platform/decorators/auth.decorator';
import { ScopeArea } from '../../platform/decorators/scope.decorator';
import { OneTimeSecrets } from '../../platform/idempotency/one-time-secret.decorator';
import { ApiDataResponse, ApiErrors, ApiListResponse } from '../../platform/openapi/api-responses';
import { ApiTag } from '../../platform/openapi/api-tags';
import { OffsetPageMetaView } from '../../platform/pagination/page-meta.view';
import { OffsetPageQuery } from '../../platform/pagination/offset-page.query';
import { ValidBody, ValidQuery } from '../../platform/validation/validated-parameters';
import { CreateOAuthClientDto } from './dto/create-oauth-client.dto';
import { CreatedOAuthClientView, OAuthClientView } from './oauth-client.view';
import { OAuthClientsService } from './oauth-clients.service';

const CLIENT_ID = ApiParam({
  name: 'id',
  description: 'The client (`cli_`), also its `client_id`.',
  schema: { type: 'string', pattern: idPattern('cli'), example: 'cli_01JD3Q0F6K8W2M4N6P8R0T2V4X' },
});

@ApiTag('OAuth clients')
@ApiBearerAuth()
@ApiCookieAuth()
@ScopeArea(null)
@UserLoginOnly()
@Controller('oauth-clients')
export class OAuthClientsController {
  constructor(private readonly clients: OAuthClientsService) {}

  @Post()
  @OneTimeSecrets('client_secret')
  @ApiOperation({
    operationId: 'createOAuthClient',
    summary: 'Register an OAuth client',
    description:
      'Needs a JWT or session login (an API key or OAuth token gets 403). A confidential client\'s `client_secret` ' +
      'is returned only here; the record `id` is its `client_id`.',
  })
  @ApiDataResponse(CreatedOAuthClientView, 201, 'The new client, with its secret when confidential')
  @ApiErrors(400, 401, 403, 429)
  create(@Auth() auth: AuthContext, @ValidBody() body: CreateOAuthClientDto): Promise<CreatedOAuthClientView> {
    return this.clients.create(auth, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listOAuthClients', summary: "List the caller's OAuth clients", description: 'Newest first; secrets are never shown.' })
  @ApiListResponse(OAuthClientView, OffsetPageMetaView)
  @ApiErrors(400, 401, 403, 429)
  list(@Auth() auth: AuthContext, @ValidQuery() query: OffsetPageQuery, @Req() req: Request): Promise<Paginated<OAuthClientView>> {
    return this.clients.list(auth, query, req.path);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getOAuthClient', summary: "Get one of the caller's OAuth clients", description: 'Another user\'s client is 404; the secret is never shown.' })
  @CLIENT_ID
  @ApiDataResponse(OAuthClientView)
  @ApiErrors(401, 403, 404, 429)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<OAuthClientView> {
    return this.clients.get(auth, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted; no body' })
  @ApiOperation({ operationId: 'deleteOAuthClient', summary: 'Delete an OAuth client', description: 'Its authorization codes and tokens stop working at once.' })
  @CLIENT_ID
  @ApiErrors(401, 403, 404, 429)
  delete(@Auth() auth: AuthContext, @Param('id') id: string): Promise<void> {
    return this.clients.delete(auth, id);
  }
}
