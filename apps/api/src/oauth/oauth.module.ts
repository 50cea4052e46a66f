import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { SessionModule } from '../session/session.module';
import { AuthorizationController } from './authorize/authorization.controller';
import { AuthorizationFlowService } from './authorize/authorization-flow.service';
import { AuthorizationRequestInspector } from './authorize/authorization-request';
import { LoginCsrf } from './authorize/login-csrf.service';
import { OAuthClientsController } from './clients/oauth-clients.controller';
import { OAuthClientsService } from './clients/oauth-clients.service';
import { OAuthTokenStrategy } from './credential/oauth-token.strategy';
import { OAuthClientRepository } from './oauth-client.repository';
import { OAuthGrantRepository } from './oauth-grant.repository';
import { AuthorizationServer } from './server/authorization-server';
import { OAuthGrantModel } from './server/oauth-grant-model';
import { OAuthServerController } from './server/oauth-server.controller';
import { TokenAdministrationService } from './server/token-administration.service';

/**
 * OAuth 2.0: client registration, the authorization server (grant logic from
 * `@node-oauth/oauth2-server`, with our storage and pages), and the OAuth access token credential.
 */
@Module({
  imports: [AuthModule, SessionModule],
  controllers: [OAuthClientsController, OAuthServerController, AuthorizationController],
  providers: [
    OAuthClientRepository,
    OAuthGrantRepository,
    OAuthClientsService,
    OAuthGrantModel,
    AuthorizationServer,
    TokenAdministrationService,
    AuthorizationRequestInspector,
    AuthorizationFlowService,
    LoginCsrf,
    OAuthTokenStrategy,
  ],
  exports: [OAuthClientsService, LoginCsrf],
})
export class OAuthModule {}
