import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { AuthContext, Paginated } from '@app/common';
import { UserLoginOnly } from '../auth/decorators/user-login-only.decorator';
import { Auth } from '../common/decorators/auth.decorator';
import { ScopeArea } from '../common/decorators/scope.decorator';
import { OneTimeSecrets } from '../common/idempotency/one-time-secret.decorator';
import { ApiDataResponse, ApiErrors, ApiListResponse } from '../common/openapi/api-responses';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyView, CreatedApiKeyView } from './api-key.view';
import { OffsetPageQuery } from '../common/pagination/offset-page.query';
import { CreateApiKeyDto } from './dto/create-api-key.dto';

@ApiTags('API keys')
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
    summary: 'Create an API key',
    description:
      'Needs a JWT or session login (an API key or OAuth token gets 403). The secret `key` is returned only here: ' +
      'an `Idempotency-Key` replay answers the record without it, with `Idempotent-Secret-Omitted: key`.',
  })
  @ApiDataResponse(CreatedApiKeyView, 201, 'The new key, with its secret')
  @ApiErrors(400, 401, 403, 429)
  create(@Auth() auth: AuthContext, @Body() body: CreateApiKeyDto): Promise<CreatedApiKeyView> {
    return this.apiKeys.create(auth, body);
  }

  @Get()
  @ApiOperation({ summary: "List the caller's API keys", description: 'Revoked keys are not listed; secrets never are.' })
  @ApiListResponse(ApiKeyView)
  @ApiErrors(400, 401, 403, 429)
  list(@Auth() auth: AuthContext, @Query() query: OffsetPageQuery, @Req() req: Request): Promise<Paginated<ApiKeyView>> {
    return this.apiKeys.list(auth, query, req.path);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Done; no body' })
  @ApiOperation({ summary: 'Revoke an API key', description: 'The key stops working at once.' })
  @ApiErrors(401, 403, 404, 429)
  revoke(@Auth() auth: AuthContext, @Param('id') id: string): Promise<void> {
    return this.apiKeys.revoke(auth, id);
  }
}
