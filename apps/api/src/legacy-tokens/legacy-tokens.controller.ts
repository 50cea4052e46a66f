import { Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiHeader, ApiOperation } from '@nestjs/swagger';
import { TokenPairView } from '../auth/dto/token-pair.view';
import type { TokenPair } from '../auth/token.service';
import { AcceptsLegacyToken, Public } from '../platform/decorators/public.decorator';
import { ApiDataResponse, ApiErrors } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { LegacyTokensService } from './legacy-tokens.service';

@ApiTag('Authentication')
@Controller('auth')
export class LegacyTokensController {
  constructor(private readonly legacyTokens: LegacyTokensService) {}

  /** Public to the global guard: the legacy token in X-Auth-Token is its credential. */
  @Public()
  @AcceptsLegacyToken()
  @Post('migrate')
  @HttpCode(200)
  @ApiHeader({ name: 'X-Auth-Token', required: true, description: 'A token of the earlier API version.', schema: { type: 'string', minLength: 1 } })
  @ApiOperation({
    operationId: 'migrateLegacyToken',
    summary: 'Exchange a legacy token for a token pair',
    description: 'Each legacy token works once; the answer is the token pair of a new login. A missing, unknown or used token is 401.',
  })
  @ApiDataResponse(TokenPairView)
  @ApiErrors(401, 429)
  migrate(@Headers('x-auth-token') token: string | undefined): Promise<TokenPair> {
    return this.legacyTokens.migrate(token);
  }
}
