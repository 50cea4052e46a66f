import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ALL_SCOPES, AuthenticationRequiredError, ResourceNotFoundError } from '@app/common';
import { AppConfig } from '@app/config';
import { AuthContextFactory } from '../../auth/auth-context.factory';
import { readCookie, sessionCookieName } from '../../session/session-cookie';
import { SessionStore } from '../../session/session.store';
import { UsersService } from '../../users/users.service';
import type { SignedInUser } from './signed-in-user';

/**
 * The console's sign-in is the session login: the same cookie, read from Redis on every page (as
 * the OAuth pages read it) so that a session ended anywhere ends here at once, and the same
 * AuthContext the session credential gives the API, built by the one factory.
 */
@Injectable()
export class ConsoleSessions {
  /** Each request's answer, found once: the rate limit asks before the console's own guard does. */
  private readonly found = new WeakMap<Request, Promise<SignedInUser | null>>();

  constructor(
    private readonly store: SessionStore,
    private readonly contexts: AuthContextFactory,
    private readonly users: UsersService,
    private readonly config: AppConfig,
  ) {}

  /** The user whose live session the request's cookie names, or null. */
  signedIn(req: Request): Promise<SignedInUser | null> {
    let user = this.found.get(req);
    if (!user) {
      user = this.find(req);
      this.found.set(req, user);
    }
    return user;
  }

  private async find(req: Request): Promise<SignedInUser | null> {
    const cookie = readCookie(req.headers.cookie, sessionCookieName(this.config));
    const session = cookie ? await this.store.find(cookie) : null;
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
