import { randomBytes } from 'node:crypto';
import type { DiscoveryService } from '@nestjs/core';
import type Redis from 'ioredis';
import { connectRunRedis } from '@app/testing';
import type { AuthContext, CredentialKind } from '@app/common';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import { RedisPipelineBatch } from '../platform/redis/redis-pipeline-batch';
import { CredentialRevocationService } from './credential-revocation.service';
import type { CredentialDescriptor, CredentialStrategy } from './credential';
import { CredentialRegistry } from './credential-registry';
import { accessTokenMark, JWT_CREDENTIAL, refreshFamilyMark } from './strategies/jwt.credential';

/** A credential revoked by a mark per id, and one revoked where it is verified. */
const MARKED: CredentialDescriptor = {
  ...JWT_CREDENTIAL,
  kind: 'session',
  revocation: { marksOf: (auth) => [`spec-mark:${auth.credentialId}`], message: 'The session has ended.' },
};
const UNMARKED: CredentialDescriptor = { ...JWT_CREDENTIAL, kind: 'api_key', revocation: undefined };

function registry(): CredentialRegistry {
  const credentials = new CredentialRegistry({} as DiscoveryService);
  for (const credential of [JWT_CREDENTIAL, MARKED, UNMARKED]) credentials.register({ credential } as CredentialStrategy);
  return credentials;
}

const caller = (credential: CredentialKind = 'jwt'): AuthContext => ({
  userId: 'usr_1',
  role: 'user',
  plan: 'free',
  credential,
  scopes: [],
  credentialId: randomBytes(8).toString('hex'),
  familyId: randomBytes(8).toString('hex'),
  expiresAt: Math.floor(Date.now() / 1000) + 600,
});

/** A request of `auth`, its state attached on first use as for a request the middleware did not see. */
const requestOf = (auth: AuthContext | undefined): AuthenticatedRequest => ({ auth }) as AuthenticatedRequest;

/** Against the test run's Redis: the marks are Redis keys with expiries. */
describe('CredentialRevocationService', () => {
  let redis: Redis;
  let revocations: CredentialRevocationService;

  beforeAll(async () => {
    redis = connectRunRedis();
    // Connected before any test counts the commands sent.
    await redis.ping();
    revocations = new CredentialRevocationService(redis, new RedisPipelineBatch(redis), registry());
  });
  afterAll(async () => {
    await redis.quit();
  });
  afterEach(() => jest.restoreAllMocks());

  it("checks the credentials of one turn in one pipelined round trip, each by its descriptor's marks", async () => {
    const [live, revokedToken, revokedFamily, revokedSession] = [caller(), caller(), caller(), caller('session')];
    await revocations.revoke(accessTokenMark(revokedToken.credentialId), 60);
    await revocations.revoke(refreshFamilyMark(revokedFamily.familyId ?? ''), 60);
    await revocations.revoke(`spec-mark:${revokedSession.credentialId}`, 60);
    const pipelines = jest.spyOn(redis, 'pipeline');
    const answers = await Promise.all([live, revokedToken, revokedFamily, revokedSession].map((auth) => Promise.resolve(revocations.isRevoked(requestOf(auth)))));
    expect(answers).toEqual([false, true, true, true]);
    expect(pipelines).toHaveBeenCalledTimes(1);
  });

  it("checks a JWT's two marks in one EXISTS", async () => {
    const auth = caller();
    const exists = jest.spyOn(redis, 'exists');
    await revocations.revoke(refreshFamilyMark(auth.familyId ?? ''), 60);
    expect(await revocations.isRevoked(requestOf(auth))).toBe(true);
    expect(exists.mock.calls).toEqual([[accessTokenMark(auth.credentialId), refreshFamilyMark(auth.familyId ?? '')]]);
  });

  it('asks Redis once per request, and answers later questions at once', async () => {
    const auth = caller();
    const req = requestOf(auth);
    const commands = jest.spyOn(redis, 'sendCommand');
    const first = revocations.isRevoked(req);
    expect(revocations.isRevoked(req)).toBe(first);
    expect(await first).toBe(false);
    expect(commands).toHaveBeenCalledTimes(1);
    await revocations.revoke(accessTokenMark(auth.credentialId), 60);
    expect(revocations.isRevoked(req)).toBe(false);
    expect(revocations.marksToCheck(req)).toEqual([]);
    expect(commands.mock.calls.map(([command]) => command.name)).toEqual(['exists', 'set']);
  });

  it('keeps a mark as long as it is told, and at least a second', async () => {
    const mark = `spec-mark:${randomBytes(8).toString('hex')}`;
    await revocations.revoke(mark, 600);
    expect(await redis.ttl(mark)).toBeGreaterThan(590);
    await revocations.revoke(mark, -5);
    expect(await redis.ttl(mark)).toBe(1);
  });

  it('never reads Redis for a caller without marks, or for no caller', () => {
    const pipelines = jest.spyOn(redis, 'pipeline');
    expect(revocations.isRevoked(requestOf(caller('api_key')))).toBe(false);
    expect(revocations.isRevoked(requestOf(undefined))).toBe(false);
    expect(pipelines).not.toHaveBeenCalled();
  });

  it("refuses in the words of the credential's descriptor", () => {
    expect(revocations.refusal(caller('session')).message).toBe('The session has ended.');
    expect(revocations.refusal(caller()).message).toMatch(/access token has been revoked/);
  });

  it('fails every check of a round trip that fails, with its error', async () => {
    const failure = new Error('Connection is closed.');
    const failing = { pipeline: () => ({ exists: jest.fn(), exec: () => Promise.reject(failure) }) } as unknown as Redis;
    const service = new CredentialRevocationService(failing, new RedisPipelineBatch(failing), registry());
    const answers = await Promise.allSettled([service.isRevoked(requestOf(caller())), service.isRevoked(requestOf(caller('session')))]);
    expect(answers).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
  });
});
