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

/** The value of a hidden input of a page. */
export function hiddenField(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&#38;/g, '&');
}

/** Walks the consent page with an existing session and presses a button; returns the redirect. */
export async function consent(
  http: TestAgent,
  cookie: string,
  query: Record<string, string>,
  decision: 'allow' | 'deny' = 'allow',
): Promise<URL> {
  const page = await http.get('/oauth/authorize').query(query).set('Cookie', cookie).expect(200);
  const form: Record<string, string> = { decision, csrf_token: hiddenField(page.text, 'csrf_token') ?? '' };
  for (const name of ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method']) {
    const value = hiddenField(page.text, name);
    if (value !== undefined) form[name] = value;
  }
  const answer = await http.post('/oauth/authorize').type('form').set('Cookie', cookie).send(form).expect(303);
  return new URL(answer.headers.location);
}
