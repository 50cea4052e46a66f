import type { Request } from 'express';
import type { AuthContext } from '@app/common';
import type { AuthContextFactory } from '../../auth/auth-context.factory';
import type { SessionReader } from '../../session/session-reader';
import type { StoredSession } from '../../session/session.store';
import type { UsersService } from '../../users/users.service';
import { ConsoleSessions } from './console-sessions';

const SESSION: StoredSession = { id: 'ses_1', userId: 'usr_1', csrfToken: 'csrf', createdAt: '2026-01-01T00:00:00.000Z' };
const AUTH = { userId: 'usr_1', role: 'user', plan: 'free', credential: 'session', scopes: [], credentialId: 'ses_1' } as unknown as AuthContext;

function sessionsOver(session: StoredSession | null) {
  const current = jest.fn().mockResolvedValue(session);
  const build = jest.fn().mockResolvedValue(AUTH);
  const get = jest.fn().mockResolvedValue({ email: 'ada@example.com' });
  const sessions = new ConsoleSessions({ current } as unknown as SessionReader, { build } as unknown as AuthContextFactory, { get } as unknown as UsersService);
  return { sessions, current, build, get };
}

const page = (): Request => ({ headers: {}, query: {} }) as Request;

describe('ConsoleSessions', () => {
  it('finds who a request signs in once, for the rate limit and the guard alike, and each request anew', async () => {
    const { sessions, current, build, get } = sessionsOver(SESSION);
    const req = page();
    const expected = { auth: AUTH, email: 'ada@example.com', csrfToken: 'csrf' };
    expect(await sessions.signedIn(req)).toEqual(expected);
    expect(await sessions.signedIn(req)).toEqual(expected);
    expect([current, build, get].map((step) => step.mock.calls.length)).toEqual([1, 1, 1]);

    await sessions.signedIn(page());
    expect([current, build, get].map((step) => step.mock.calls.length)).toEqual([2, 2, 2]);
  });

  it('signs no one in without a live session, asking nothing more', async () => {
    const { sessions, build } = sessionsOver(null);
    expect(await sessions.signedIn(page())).toBeNull();
    expect(build).not.toHaveBeenCalled();
  });
});
