import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { UsersModule } from '../users/users.module';
import { SessionReader } from './session-reader';
import { SessionController } from './session.controller';
import { SessionService } from './session.service';
import { SessionStore } from './session.store';
import { SessionStrategy } from './session.strategy';

/**
 * Cookie login and logout, the session credential (whose strategy the authentication guard finds
 * in its registry), and `SessionReader`, the one reader of the cookie the console and the OAuth pages share.
 */
@Module({
  imports: [AuthModule, UsersModule],
  controllers: [SessionController],
  providers: [SessionService, SessionStore, SessionReader, SessionStrategy],
  exports: [SessionService, SessionReader],
})
export class SessionModule {}
