import { Injectable } from '@nestjs/common';
import { AuthContext, AuthenticationRequiredError, InsufficientPermissionsError } from '@app/common';
import { AuthService } from '../auth/auth.service';
import { UsersService } from '../users/users.service';
import { SessionLoginView } from './session-login.view';
import { SessionStore } from './session.store';

export interface StartedSession {
  view: SessionLoginView;
  cookieValue: string;
}

@Injectable()
export class SessionService {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersService,
    private readonly store: SessionStore,
  ) {}

  async login(email: string, password: string): Promise<StartedSession> {
    const userId = await this.auth.verifyPassword(email, password);
    if (!userId) throw new AuthenticationRequiredError('The email or password is incorrect.');
    const user = await this.users.get(userId);
    const { session, cookieValue } = await this.store.create(userId);
    return { view: { user, csrf_token: session.csrfToken }, cookieValue };
  }

  /**
   * Ends the session of this request, on the server: its cookie is refused from now on. Another
   * credential is well formed but not one this operation takes, as an API key on /api-keys: 403.
   */
  async logout(auth: AuthContext): Promise<void> {
    if (auth.credential !== 'session') {
      throw new InsufficientPermissionsError(
        'This request carries no session cookie: only a session can be logged out here (a JWT login ends at POST /v2/auth/logout).',
      );
    }
    await this.store.destroy(auth.credentialId);
  }
}
