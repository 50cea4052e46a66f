import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { OAuthModule } from '../oauth/oauth.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { SessionModule } from '../session/session.module';
import { UsersModule } from '../users/users.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ConsoleSessionGuard } from './access/console-session.guard';
import { ConsoleSessions } from './access/console-sessions';
import { FormSubmissions } from './access/form-submissions';
import { ShownOnce } from './access/shown-once';
import { ApiKeyPagesController } from './api-keys/api-key-pages.controller';
import { ConsoleEventLog } from './events/console-event-log.service';
import { EventPagesController } from './events/event-pages.controller';
import { OAuthClientPagesController } from './oauth-clients/oauth-client-pages.controller';
import { OrganizationPagesController } from './organizations/organization-pages.controller';
import { ConsoleAssetsController } from './rendering/console-assets.controller';
import { ConsoleSignInService } from './sign-in/console-sign-in.service';
import { ConsoleSignInController } from './sign-in/console-sign-in.controller';
import { WebhookPagesController } from './webhooks/webhook-pages.controller';

/**
 * The developer console at `/console`: server-rendered pages over the same services the API
 * calls, with the signed-in user's session AuthContext, so that a page shows what the API would.
 */
@Module({
  imports: [AuthModule, SessionModule, UsersModule, ApiKeysModule, WebhooksModule, EventsModule, OAuthModule, OrganizationsModule],
  controllers: [
    ConsoleSignInController,
    ApiKeyPagesController,
    WebhookPagesController,
    EventPagesController,
    OAuthClientPagesController,
    OrganizationPagesController,
    ConsoleAssetsController,
  ],
  providers: [ConsoleSessions, ConsoleSessionGuard, ConsoleSignInService, ConsoleEventLog, FormSubmissions, ShownOnce],
})
export class ConsoleModule {}
