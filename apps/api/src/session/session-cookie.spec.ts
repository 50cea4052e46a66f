import type { Response } from 'express';
import { AppConfig } from '@app/config';
import { clearSessionCookie, setSessionCookie } from './session-cookie';
import { SESSION_TTL_SECONDS } from './session.store';

const configServedAt = (publicUrl: string): AppConfig => Object.assign(new AppConfig(), { PUBLIC_URL: publicUrl, NODE_ENV: 'production' });

function recordingResponse(): { res: Response; cookie: jest.Mock; clearCookie: jest.Mock } {
  const cookie = jest.fn();
  const clearCookie = jest.fn();
  return { res: { cookie, clearCookie } as unknown as Response, cookie, clearCookie };
}

/** Every place that starts or ends a session sets and clears the same cookie, the one SessionReader reads. */
describe('the session cookie', () => {
  it('is host-only and HttpOnly over https, for as long as the session lives', () => {
    const { res, cookie } = recordingResponse();
    setSessionCookie(res, configServedAt('https://api.example.com'), 'ses_1.secret');
    expect(cookie).toHaveBeenCalledWith('__Host-rms_session', 'ses_1.secret', {
      httpOnly: true,
      sameSite: 'lax',
      secure: true,
      path: '/',
      maxAge: SESSION_TTL_SECONDS * 1000,
    });
  });

  it('is cleared under the name and options it was set with', () => {
    const { res, cookie, clearCookie } = recordingResponse();
    const config = configServedAt('http://localhost:3000');
    setSessionCookie(res, config, 'ses_1.secret');
    clearSessionCookie(res, config);
    const [name, , options] = cookie.mock.calls[0] as [string, string, object];
    expect(name).toBe('rms_session');
    expect(clearCookie).toHaveBeenCalledWith(name, options);
  });
});
