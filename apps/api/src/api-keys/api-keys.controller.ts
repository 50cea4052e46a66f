import { Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiNoContentResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthContext, idPattern, Paginated } from '@app/common';
import { UserLoginOnly } from '../auth/decorators/user-login-only.decorator';
import { Auth } from '../platform/decorators/auth.decorator';
import { ScopeArea } from '../platform/decorators/scope.decorator';
import { OneTimeSecrets } from '../platform/idempotency/one-time-secret.decorator';
import { ApiDataResponse, ApiErrors, ApiListResponse } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { OffsetPageMetaView } from '../platform/pagination/page-meta.view';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyView, CreatedApiKeyView } from './api-key.view';
import { OffsetPageQuery } from '../platform/pagination/offset-page.query';
import { ValidBody, ValidQuery } from '../platform/validation/validated-parameters';
import { CreateApiKeyDto, RollApiKeyDto } from './dto/create-api-key.dto';

const API_KEY_ID = ApiParam({
  name: 'id',
  description: 'The key (`key_`).',
  schema: { type: 'string', pattern: idPattern('key'), example: 'key_01JD3Q0F6K8W2M4N6P8R0T2V4X' },
});

@ApiTag('API keys')
@ApiBearerAuth()
@ApiCookieAuth()
@ScopeArea(null)
@UserLoginOnly()
@Controller('api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @OneTimeSecrets('key')
  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'Needs a JWT or session login (an API key or OAuth token gets 403). `expires_at` (optional) is when the key ' +
      'stops working. The secret `key` is returned only here: ' +
      'an `Idempotency-Key` replay answers the record without it, with `Idempotent-Secret-Omitted: key`.',
  })
  @ApiDataResponse(CreatedApiKeyView, 201, 'The new key, with its secret')
  @ApiErrors(400, 401, 403, 429)
  create(@Auth() auth: AuthContext, @ValidBody() body: CreateApiKeyDto): Promise<CreatedApiKeyView> {
    return this.apiKeys.create(auth, body);
  }

  @Post(':id/roll')
  @OneTimeSecrets('key')
  @ApiOperation({
    operationId: 'rollApiKey',
    summary: 'Roll an API key',
    description:
      'Makes a new key with the same name, scopes and environment, its secret `key` shown only here, and lets the old ' +
      'key keep working for `expires_in` seconds (default 86400; 0 stops it at once), or until its own `expires_at` ' +
      'when that is sooner: the old key\'s record shows that `expires_at`. Needs a JWT or session login. A key that has ' +
      'expired or was deleted is 404 `not_found`; an unknown key, or another user\'s, 404 `resource_not_found`.',
  })
  @API_KEY_ID
  @ApiDataResponse(CreatedApiKeyView, 201, 'The new key, with its secret')
  @ApiErrors(400, 401, 403, 404, 429)
  roll(@Auth() auth: AuthContext, @Param('id') id: string, @ValidBody() body: RollApiKeyDto): Promise<CreatedApiKeyView> {
    return this.apiKeys.roll(auth, id, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listApiKeys', summary: "List the caller's API keys", description: 'Newest first. Revoked keys are not listed (expired ones are, with their `expires_at`); secrets never are.' })
  @ApiListResponse(ApiKeyView, OffsetPageMetaView)
  @ApiErrors(400, 401, 403, 429)
  list(@Auth() auth: AuthContext, @ValidQuery() query: OffsetPageQuery, @Req() req: Request): Promise<Paginated<ApiKeyView>> {
    return this.apiKeys.list(auth, query, req.path);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked; no body' })
  @ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke an API key', description: 'The key stops working at once, on every replica.' })
  @API_KEY_ID
  @ApiErrors(401, 403, 404, 429)
  revoke(@Auth() auth: AuthContext, @Param('id') id: string): Promise<void> {
    return this.apiKeys.revoke(auth, id);
  }
}
