import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ApiKeyAuthGuard } from './api-key-auth.guard';
import { ApiKeyStrategy } from './api-key.strategy';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { VerifiedApiKeyCache } from './verified-api-key.cache';

/** API key management, and the API key credential the authentication guard finds in its registry. */
@Module({
  imports: [AuthModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysService, VerifiedApiKeyCache, ApiKeyStrategy, ApiKeyAuthGuard],
})
export class ApiKeysModule {}
