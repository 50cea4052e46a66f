import { createHash, randomBytes } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import type { TestUser } from '../support';

export interface RegisteredClient {
  id: string;
  client_secret?: string;
  redirect_uris: string[];
  scopes: string[];
  confidential: boolean;
}

export const REDIRECT_URI = 'https://client.example.com/callback';

export async function registerClient(http: TestAgent, owner: TestUser, body: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const res = await http
    .post('/v2/oauth-clients')
    .set('Authorization', `Bearer ${owner.accessToken}`)
    .send({ name: 'Acme dashboard', redirect_uris: [REDIRECT_URI], scopes: ['read:resources', 'write:resources'], ...body })
    .expect(201);
  return res.body.data as RegisteredClient;
}

/** A session cookie of `user`, as the login page would set it. */
export async function sessionCookie(http: TestAgent, user: TestUser): Promise<string> {
  const res = await http.post('/v2/session/login').send({ email: user.email, password: user.password }).expect(200);
  return (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The hidden inputs of a page, by name, their values unescaped. */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[name] = value.replace(/&#(\d+);/g, (_entity, code: string) => String.fromCharCode(Number(code)));
  }
  return fields;
}

/** The value of a hidden input of a page. */
export function hiddenField(html: string, name: string): string | undefined {
  return hiddenFields(html)[name];
}

/** `name=value` of the cookie a response sets under `name`, bare or `__Host-` prefixed. */
export function setCookiePair(setCookies: string[], name: string): string {
  const line = setCookies.find((cookie) => cookie.startsWith(`${name}=`) || cookie.startsWith(`__Host-${name}=`));
  if (!line) throw new Error(`No ${name} cookie among: ${setCookies.join(' | ')}`);
  return line.split(';')[0];
}

async function postForm(url: string, cookie: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
    body: new URLSearchParams(fields),
  });
}

/**
 * What a browser does between a client's authorization URL and its redirect URI, with `fetch`:
 * the login page, its form sent back with the CSRF token and the pre-session cookie, then Allow
 * on the consent page. Returns where the server sent the browser back to.
 */
export async function authorizeInBrowser(authorizationUrl: string, user: TestUser): Promise<URL> {
  const origin = new URL(authorizationUrl).origin;
  const login = await fetch(authorizationUrl, { redirect: 'manual' });
  const loginHtml = await login.text();
  if (login.status !== 200) throw new Error(`The login page answered ${login.status}: ${loginHtml}`);
  const preSession = setCookiePair(login.headers.getSetCookie(), 'rms_oauth_csrf');
  const loggedIn = await postForm(`${origin}/oauth/authorize/login`, preSession, { ...hiddenFields(loginHtml), email: user.email, password: user.password });
  if (loggedIn.status !== 303) throw new Error(`The login form answered ${loggedIn.status}: ${await loggedIn.text()}`);
  const session = setCookiePair(loggedIn.headers.getSetCookie(), 'rms_session');
  const consentPage = await fetch(new URL(loggedIn.headers.get('location') ?? '', origin), { headers: { Cookie: session } });
  const consentHtml = await consentPage.text();
  const decided = await postForm(`${origin}/oauth/authorize`, session, { ...hiddenFields(consentHtml), decision: 'allow' });
  if (decided.status !== 303) throw new Error(`The consent form answered ${decided.status}: ${await decided.text()}`);
  return new URL(decided.headers.get('location') ?? '');
}

/** Walks the consent page with an existing session and presses a button; returns the redirect. */
export async function consent(
  http: TestAgent,
  cookie: string,
  query: Record<string, string>,
  decision: 'allow' | 'deny' = 'allow',
): Promise<URL> {
  const page = await http.get('/oauth/authorize').query(query).set('Cookie', cookie).expect(200);
  const answer = await http
    .post('/oauth/authorize')
    .type('form')
    .set('Cookie', cookie)
    .send({ ...hiddenFields(page.text), decision })
    .expect(303);
  return new URL(answer.headers.location);
}
