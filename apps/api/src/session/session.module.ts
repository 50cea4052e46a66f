import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { UsersModule } from '../users/users.module';
import { SessionController } from './session.controller';
import { SessionService } from './session.service';
import { SessionStore } from './session.store';
import { SessionStrategy } from './session.strategy';

/** Cookie login and logout, and the session credential, whose strategy the authentication guard finds in its registry. */
@Module({
  imports: [AuthModule, UsersModule],
  controllers: [SessionController],
  providers: [SessionService, SessionStore, SessionStrategy],
  exports: [SessionService, SessionStore],
})
export class SessionModule {}
