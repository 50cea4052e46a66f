import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOperation } from '@nestjs/swagger';
import type { AuthContext } from '@app/common';
import { Auth } from '../platform/decorators/auth.decorator';
import { Public } from '../platform/decorators/public.decorator';
import { ScopeArea } from '../platform/decorators/scope.decorator';
import { ApiDataResponse, ApiErrors } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { ValidBody } from '../platform/validation/validated-parameters';
import { AuthService } from './auth.service';
import { LoginDto } from './dto/login.dto';
import { RefreshDto } from './dto/refresh.dto';
import { TokenPairView } from './dto/token-pair.view';
import { TokenPair } from './token.service';

@ApiTag('Authentication')
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'logIn',
    summary: 'Exchange email and password for a token pair',
    description:
      'A wrong password and an unknown email get the same 401. After 10 failed logins for one email in 15 minutes, ' +
      'logins for it are 429 until the window ends, even with the right password.',
  })
  @ApiDataResponse(TokenPairView)
  @ApiErrors(400, 401, 429)
  login(@ValidBody() body: LoginDto): Promise<TokenPair> {
    return this.auth.login(body.email, body.password);
  }

  @Public()
  @Post('refresh')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'refreshTokens',
    summary: 'Rotate a refresh token',
    description:
      'Returns a new pair; the presented refresh token is used up. Presenting a used refresh token ' +
      '(concurrent presentations of one token included) revokes every token of its login: 401.',
  })
  @ApiDataResponse(TokenPairView)
  @ApiErrors(400, 401, 429)
  refresh(@ValidBody() body: RefreshDto): Promise<TokenPair> {
    return this.auth.refresh(body.refresh_token);
  }

  @Post('logout')
  @ScopeArea(null)
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({
    operationId: 'logOut',
    summary: 'Revoke the access token and its refresh tokens',
    description: 'Other logins of the account keep working. With a credential other than a JWT it changes nothing.',
  })
  @ApiNoContentResponse({ description: 'Logged out; no body' })
  @ApiErrors(401, 429)
  logout(@Auth() auth: AuthContext): Promise<void> {
    return this.auth.logout(auth);
  }
}
