import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LegacyTokenRepository } from './legacy-token.repository';
import { LegacyTokensController } from './legacy-tokens.controller';
import { LegacyTokensService } from './legacy-tokens.service';

/** `POST /auth/migrate`; tokens are imported by the `import-legacy-tokens` command. */
@Module({
  imports: [AuthModule],
  controllers: [LegacyTokensController],
  providers: [LegacyTokenRepository, LegacyTokensService],
})
export class LegacyTokensModule {}
