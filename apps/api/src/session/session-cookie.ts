import type { CookieOptions } from 'express';
import type { AppConfig } from '@app/config';
import { SESSION_TTL_SECONDS } from './session.store';

export const SESSION_COOKIE = 'rms_session';

/** The value of one cookie in a `Cookie` header, or undefined when it is absent. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0 || pair.slice(0, separator).trim() !== name) continue;
    const value = pair.slice(separator + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site POSTs), Secure outside
 * development, and the whole host as its path so that `/oauth/authorize` sees it too.
 */
export function sessionCookieOptions(config: AppConfig): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.NODE_ENV !== 'development',
    path: '/',
    maxAge: SESSION_TTL_SECONDS * 1000,
  };
}
