import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeyStrategy } from './api-key.strategy';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { VerifiedApiKeyCache } from './verified-api-key.cache';

/** API key management, and the API key credential, whose strategy the authentication guard finds in its registry. */
@Module({
  imports: [AuthModule],
  controllers: [ApiKeysController],
  providers: [ApiKeyRepository, ApiKeysService, VerifiedApiKeyCache, ApiKeyStrategy],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}
