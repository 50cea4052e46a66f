import type { CookieOptions, Response } from 'express';
import type { AppConfig } from '@app/config';
import { SESSION_TTL_SECONDS } from './session.store';

/** The session cookie's name over http; over https it carries the `__Host-` prefix (`hostCookieName`). */
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

const servedOverHttps = (config: AppConfig): boolean => config.PUBLIC_URL.startsWith('https:');

/**
 * Over https a cookie of the service is named `__Host-<name>`: browsers keep such a cookie only
 * when it is Secure, host-only and on Path=/, so that no sibling subdomain or plain-http page can
 * plant or shadow it. Over http (local development) browsers would drop it, so the name is bare.
 */
export function hostCookieName(config: AppConfig, name: string): string {
  return servedOverHttps(config) ? `__Host-${name}` : name;
}

export function sessionCookieName(config: AppConfig): string {
  return hostCookieName(config, SESSION_COOKIE);
}

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site POSTs), Secure over https
 * and outside development, and the whole host as its path, as the `__Host-` prefix requires.
 */
export function hostCookieOptions(config: AppConfig): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', secure: servedOverHttps(config) || config.NODE_ENV !== 'development', path: '/' };
}

function sessionCookieOptions(config: AppConfig): CookieOptions {
  return { ...hostCookieOptions(config), maxAge: SESSION_TTL_SECONDS * 1000 };
}

/** Hands a started session to the browser: the session login, and the console's and the OAuth pages' sign-in. */
export function setSessionCookie(res: Response, config: AppConfig, cookieValue: string): void {
  res.cookie(sessionCookieName(config), cookieValue, sessionCookieOptions(config));
}

/** Takes the session cookie back from the browser once its session ended. */
export function clearSessionCookie(res: Response, config: AppConfig): void {
  res.clearCookie(sessionCookieName(config), sessionCookieOptions(config));
}
