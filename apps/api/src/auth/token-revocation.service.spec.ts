import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { connectRunRedis } from '@app/testing';
import type { AuthContext } from '@app/common';
import { TokenRevocationService } from './token-revocation.service';

/** Against the test run's Redis: the marks are Redis keys with expiries. */
describe('TokenRevocationService', () => {
  let redis: Redis;
  let revocations: TokenRevocationService;

  const jwtCaller = (): AuthContext => ({
    userId: 'usr_1',
    role: 'user',
    plan: 'free',
    credential: 'jwt',
    scopes: [],
    credentialId: randomBytes(8).toString('hex'),
    familyId: randomBytes(8).toString('hex'),
    expiresAt: Math.floor(Date.now() / 1000) + 600,
  });

  beforeAll(() => {
    redis = connectRunRedis();
    revocations = new TokenRevocationService(redis);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('checks the credentials of one turn in one pipelined round trip, each by its own marks', async () => {
    const [live, revokedToken, revokedFamily] = [jwtCaller(), jwtCaller(), jwtCaller()];
    await revocations.revokeAccessToken(revokedToken.credentialId, revokedToken.expiresAt ?? 0);
    await revocations.revokeFamily(revokedFamily.familyId ?? '');
    const pipelines = jest.spyOn(redis, 'pipeline');
    try {
      const verdicts = await Promise.all([live, revokedToken, revokedFamily].map((auth) => revocations.checkPending(auth)));
      expect(verdicts).toEqual([false, true, true]);
      expect(pipelines).toHaveBeenCalledTimes(1);
    } finally {
      pipelines.mockRestore();
    }
  });

  it('checks a credential found live only once', async () => {
    const auth = jwtCaller();
    expect(await revocations.checkPending(auth)).toBe(false);
    expect(revocations.pendingMarks(auth)).toEqual([]);
    await revocations.revokeAccessToken(auth.credentialId, auth.expiresAt ?? 0);
    expect(await revocations.checkPending(auth)).toBe(false);
  });

  it('checks a session by its own mark, and words its refusal as a session', async () => {
    const session: AuthContext = { ...jwtCaller(), credential: 'session', familyId: undefined, expiresAt: undefined };
    expect(revocations.pendingMarks(session)).toEqual([`revoked:ses:${session.credentialId}`]);
    await revocations.revokeSession(session.credentialId, 60);
    expect(await revocations.checkPending(session)).toBe(true);
    expect(await redis.ttl(`revoked:ses:${session.credentialId}`)).toBeGreaterThan(50);
    expect(revocations.revokedError(session).message).toMatch(/session has ended/);
    expect(revocations.revokedError(jwtCaller()).message).toMatch(/access token has been revoked/);
  });

  it('has no marks for an API key or an OAuth token', () => {
    for (const credential of ['api_key', 'oauth'] as const) {
      expect(revocations.pendingMarks({ ...jwtCaller(), credential })).toEqual([]);
    }
  });

  it('fails every check of a batch whose round trip fails, with its error', async () => {
    const failure = new Error('Connection is closed.');
    const failing = { pipeline: () => ({ exists: jest.fn(), exec: () => Promise.reject(failure) }) };
    const service = new TokenRevocationService(failing as unknown as Redis);
    const answers = await Promise.allSettled([service.checkPending(jwtCaller()), service.checkPending(jwtCaller())]);
    expect(answers).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
  });

  it('fails the check whose command fails in the pipeline', async () => {
    const failure = new Error('Command timed out');
    const failing = { pipeline: () => ({ exists: jest.fn(), exec: () => Promise.resolve([[failure, null]]) }) };
    const service = new TokenRevocationService(failing as unknown as Redis);
    await expect(service.checkPending(jwtCaller())).rejects.toBe(failure);
  });
});
