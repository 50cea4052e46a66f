import { randomBytes } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';

export interface TestUser {
  id: string;
  email: string;
  username: string;
  password: string;
  accessToken: string;
  refreshToken: string;
}

let sequence = 0;

/** A fresh unique email, username and password. */
export function newCredentials(): { email: string; username: string; password: string } {
  sequence += 1;
  const tag = `${randomBytes(4).toString('hex')}${sequence}`;
  return { email: `user_${tag}@example.com`, username: `user_${tag}`, password: `password-${tag}` };
}

/** Registers and logs in a new user through the API. */
export async function createUser(http: TestAgent): Promise<TestUser> {
  const credentials = newCredentials();
  const registered = await http.post('/v2/auth/register').send(credentials).expect(201);
  const login = await http
    .post('/v2/auth/login')
    .send({ email: credentials.email, password: credentials.password })
    .expect(200);
  return {
    id: (registered.body as { data: { id: string } }).data.id,
    ...credentials,
    accessToken: (login.body as { data: { access_token: string } }).data.access_token,
    refreshToken: (login.body as { data: { refresh_token: string } }).data.refresh_token,
  };
}
