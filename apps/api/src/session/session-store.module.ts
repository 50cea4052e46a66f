import { Module } from '@nestjs/common';
import { SessionStore } from './session.store';

/** The session store alone, so that the auth module's strategy and the session endpoints share it without a cycle. */
@Module({
  providers: [SessionStore],
  exports: [SessionStore],
})
export class SessionStoreModule {}
