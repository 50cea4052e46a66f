import { Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AuthModule } from './auth/auth.module';
import { EventsModule } from './events/events.module';
import { ErrorRenderingModule } from './platform/filters/error-rendering.module';
import { RoutingModule } from './platform/routing/routing.module';
import { IdempotencyModule } from './platform/idempotency/idempotency.module';
import { ValidationModule } from './platform/validation/validation.module';
import { HealthModule } from './health/health.module';
import { LegacyTokensModule } from './legacy-tokens/legacy-tokens.module';
import { MetricsModule } from './metrics/metrics.module';
import { OAuthModule } from './oauth/oauth.module';
import { OrganizationsModule } from './organizations/organizations.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { ResourcesModule } from './resources/resources.module';
import { SessionModule } from './session/session.module';
import { AdminUsersModule } from './users/admin-users.module';
import { UsersModule } from './users/users.module';
import { REQUEST_PIPELINE } from './request-pipeline';
import { WebhooksModule } from './webhooks/webhooks.module';
import { ConsoleModule } from './console/console.module';

/**
 * Express tries routes in the order modules are imported: the resources, the routes most
 * requests take, come first, so that a request to them passes no other route's matcher.
 */
@Module({
  imports: [ConfigModule, DatabaseModule, RoutingModule, ErrorRenderingModule, ValidationModule, ResourcesModule, AuthModule, RateLimitModule, UsersModule, ApiKeysModule, SessionModule, LegacyTokensModule, AdminUsersModule, HealthModule, MetricsModule, IdempotencyModule, OrganizationsModule, WebhooksModule, EventsModule, OAuthModule, ConsoleModule],
  providers: REQUEST_PIPELINE,
})
export class AppModule {}
