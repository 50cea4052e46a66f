import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import Redis from 'ioredis';
import { Client } from 'pg';

/** The unit tier's guard (unit-tier.setup.ts) stops I/O at once, with where the spec belongs. */
describe('the unit tier', () => {
  const refusal = /a unit spec does no I\/O: list it in SERVICE_SPECS or SYSTEM_SPECS of jest.config.js/;

  it('refuses to start a child process', () => {
    expect(() => execFileSync('true')).toThrow(refusal);
  });

  it('refuses a socket to Redis or PostgreSQL, and to a host beyond loopback', () => {
    expect(() => connect(6379, '127.0.0.1')).toThrow(refusal);
    expect(() => connect({ port: 5432 })).toThrow(refusal);
    expect(() => connect(443, 'example.com')).toThrow(refusal);
  });

  it("refuses the database and Redis clients' connections", async () => {
    await expect(new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' }).connect()).rejects.toThrow(refusal);
    const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    // Without a listener ioredis reports the refusal a second time, as an unhandled error event.
    redis.on('error', () => undefined);
    await expect(redis.connect()).rejects.toThrow(refusal);
  });
});
