import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '@app/common';
import { Auth } from '../common/decorators/auth.decorator';
import { Public } from '../common/decorators/public.decorator';
import { ScopeArea } from '../common/decorators/scope.decorator';
import { ApiDataResponse, ApiErrors } from '../common/openapi/api-responses';
import { AuthService } from './auth.service';
import { LoginDto } from './dto/login.dto';
import { RefreshDto } from './dto/refresh.dto';
import { TokenPairView } from './dto/token-pair.view';
import { TokenPair } from './token.service';

@ApiTags('Authentication')
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Exchange email and password for a token pair',
    description: 'A wrong password and an unknown email get the same 401.',
  })
  @ApiDataResponse(TokenPairView)
  @ApiErrors(400, 401, 429)
  login(@Body() body: LoginDto): Promise<TokenPair> {
    return this.auth.login(body.email, body.password);
  }

  @Public()
  @Post('refresh')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate a refresh token',
    description:
      'Returns a new pair; the presented refresh token is used up. Presenting a used refresh token ' +
      '(concurrent presentations of one token included) revokes every token of its login: 401.',
  })
  @ApiDataResponse(TokenPairView)
  @ApiErrors(400, 401, 429)
  refresh(@Body() body: RefreshDto): Promise<TokenPair> {
    return this.auth.refresh(body.refresh_token);
  }

  @Post('logout')
  @ScopeArea(null)
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Done; no body' })
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Revoke the access token and its refresh tokens',
    description: 'Other logins of the account keep working.',
  })
  @ApiNoContentResponse({ description: 'Logged out' })
  @ApiErrors(401, 429)
  logout(@Auth() auth: AuthContext): Promise<void> {
    return this.auth.logout(auth);
  }
}
