import { AppConfig } from '@app/config';
import { LoginCsrf } from './login-csrf.service';

const csrfWith = (secret: string): LoginCsrf => new LoginCsrf(Object.assign(new AppConfig(), { JWT_SECRET: secret }));

/** The login form's CSRF token is the HMAC of the cookie's pre-session id, never a copy of the cookie. */
describe('LoginCsrf', () => {
  const csrf = csrfWith('a'.repeat(32));

  it('accepts the token it issued with the cookie it issued', () => {
    const preSession = csrf.start();
    expect(preSession.csrfToken).not.toBe(preSession.id);
    expect(csrf.verify(preSession.id, preSession.csrfToken)).toBe(true);
  });

  it('refuses a cookie and a field planted to match each other', () => {
    const planted = 'P'.repeat(43);
    expect(csrf.verify(planted, planted)).toBe(false);
  });

  it("refuses a token with another pre-session's cookie", () => {
    const first = csrf.start();
    const second = csrf.start();
    expect(csrf.verify(second.id, first.csrfToken)).toBe(false);
  });

  it('refuses a token made with another key, and anything missing', () => {
    const preSession = csrf.start();
    expect(csrfWith('b'.repeat(32)).verify(preSession.id, preSession.csrfToken)).toBe(false);
    expect(csrf.verify(undefined, preSession.csrfToken)).toBe(false);
    expect(csrf.verify(preSession.id, undefined)).toBe(false);
    expect(csrf.verify('', '')).toBe(false);
  });
});
