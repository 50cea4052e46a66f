import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { UsersModule } from '../users/users.module';
import { SessionStoreModule } from './session-store.module';
import { SessionController } from './session.controller';
import { SessionService } from './session.service';

/** Cookie login and logout; the auth module's session strategy authenticates the cookie. */
@Module({
  imports: [AuthModule, UsersModule, SessionStoreModule],
  controllers: [SessionController],
  providers: [SessionService],
})
export class SessionModule {}
