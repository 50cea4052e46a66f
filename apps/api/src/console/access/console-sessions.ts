import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ALL_SCOPES, AuthenticationRequiredError, ResourceNotFoundError } from '@app/common';
import { AuthContextFactory } from '../../auth/auth-context.factory';
import { requestStateOf } from '../../platform/request/request-state';
import { SessionReader } from '../../session/session-reader';
import { UsersService } from '../../users/users.service';
import type { SignedInUser } from './signed-in-user';

/**
 * The console's sign-in is the session login: the same cookie, read from Redis on every page by the
 * one `SessionReader` (as the OAuth pages read it) so that a session ended anywhere ends here at once, and the same
 * AuthContext the session credential gives the API, built by the one factory.
 */
@Injectable()
export class ConsoleSessions {
  constructor(
    private readonly sessions: SessionReader,
    private readonly contexts: AuthContextFactory,
    private readonly users: UsersService,
  ) {}

  /** The user whose live session the request's cookie names, or null: found once per request, kept in its state. */
  signedIn(req: Request): Promise<SignedInUser | null> {
    const state = requestStateOf(req);
    return (state.sessionUser ??= this.find(req));
  }

  private async find(req: Request): Promise<SignedInUser | null> {
    const session = await this.sessions.current(req);
    if (!session) return null;
    try {
      const auth = await this.contexts.build({ userId: session.userId, credential: 'session', scopes: ALL_SCOPES, credentialId: session.id });
      const user = await this.users.get(session.userId);
      return { auth, email: user.email, csrfToken: session.csrfToken };
    } catch (error) {
      // The account went away while its session lived: that session signs no one in.
      if (error instanceof AuthenticationRequiredError || error instanceof ResourceNotFoundError) return null;
      throw error;
    }
  }
}
