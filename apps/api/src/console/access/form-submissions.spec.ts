import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import type { AuthContext } from '@app/common';
import { connectRunRedis } from '@app/testing';
import { FormSubmissions } from './form-submissions';
import { newSubmissionToken } from './form-token';
import type { SignedInUser } from './signed-in-user';
import { ShownOnce } from './shown-once';

const signedIn = (): SignedInUser => ({
  auth: { userId: 'usr_spec', credentialId: `ses_${randomBytes(6).toString('hex')}` } as AuthContext,
  email: 'spec@example.com',
  csrfToken: 'csrf',
});

/** Against the test run's Redis: a form token is claimed there, a secret held there. */
describe('FormSubmissions and ShownOnce', () => {
  let redis: Redis;
  let submissions: FormSubmissions;
  let shownOnce: ShownOnce;

  beforeAll(() => {
    redis = connectRunRedis();
    submissions = new FormSubmissions(redis);
    shownOnce = new ShownOnce(redis);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('creates once per form token and session, and sends a sending again where the first led', async () => {
    const user = signedIn();
    const form = { submission: newSubmissionToken() };
    const create = jest.fn().mockResolvedValue('/console/api-keys/key_1/created');
    await expect(submissions.once(user, form, '/console/api-keys', create)).resolves.toBe('/console/api-keys/key_1/created');
    await expect(submissions.once(user, form, '/console/api-keys', create)).resolves.toBe('/console/api-keys/key_1/created');
    expect(create).toHaveBeenCalledTimes(1);
    // The same token in another session is that session's own.
    await expect(submissions.once(signedIn(), form, '/console/api-keys', create)).resolves.toBe('/console/api-keys/key_1/created');
    expect(create).toHaveBeenCalledTimes(2);
  });

  it('sends a sending made while the first still runs to the list, creating nothing', async () => {
    const user = signedIn();
    const form = { submission: newSubmissionToken() };
    let finish: (location: string) => void = () => undefined;
    const first = submissions.once(user, form, '/console/webhooks', () => new Promise<string>((resolve) => (finish = resolve)));
    const create = jest.fn();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(submissions.once(user, form, '/console/webhooks', create)).resolves.toBe('/console/webhooks');
    finish('/console/webhooks/wh_1/created');
    await expect(first).resolves.toBe('/console/webhooks/wh_1/created');
    expect(create).not.toHaveBeenCalled();
  });

  it('gives the token back when the create is refused, so that the corrected form goes through', async () => {
    const user = signedIn();
    const form = { submission: newSubmissionToken() };
    const refusal = new Error('refused');
    await expect(submissions.once(user, form, '/console/webhooks', () => Promise.reject(refusal))).rejects.toBe(refusal);
    await expect(submissions.once(user, form, '/console/webhooks', () => Promise.resolve('/console/webhooks/wh_2/created'))).resolves.toBe(
      '/console/webhooks/wh_2/created',
    );
  });

  it('refuses a form without a well-formed token as expired', async () => {
    for (const form of [{}, { submission: 'short' }, { submission: ['a'.repeat(22), 'b'.repeat(22)] }]) {
      await expect(submissions.once(signedIn(), form, '/console', jest.fn())).rejects.toMatchObject({ status: 403 });
    }
  });

  it('shows what it holds once, to the session that made it', async () => {
    const user = signedIn();
    await shownOnce.hold(user, '/console/api-keys/key_3/created', { key: 'sk_test_secret' });
    await expect(shownOnce.take(signedIn(), '/console/api-keys/key_3/created')).resolves.toBeNull();
    await expect(shownOnce.take(user, '/console/api-keys/key_3/created')).resolves.toEqual({ key: 'sk_test_secret' });
    await expect(shownOnce.take(user, '/console/api-keys/key_3/created')).resolves.toBeNull();
  });
});
