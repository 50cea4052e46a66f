import * as argon2 from 'argon2';
import { loadConfig } from '@app/config';
import { PasswordHasher } from './password-hasher';

// The real argon2, with `verify` watched to see which hash an unknown account is checked against.
jest.mock('argon2', () => {
  const actual = jest.requireActual<typeof import('argon2')>('argon2');
  return { ...actual, verify: jest.fn(actual.verify) };
});

const TEST_RUN = { JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test', APP_ENV: 'test' };

function hasherWith(env: Record<string, string> = {}): PasswordHasher {
  return new PasswordHasher(loadConfig({ ...TEST_RUN, ...env }));
}

describe('PasswordHasher', () => {
  it("hashes with argon2id at the library's defaults unless configured", async () => {
    await expect(hasherWith().hash('correct horse')).resolves.toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=4\$/);
  });

  it('hashes at the configured cost, and verifies only the password hashed', async () => {
    const hasher = hasherWith({ PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_ITERATIONS: '2', PASSWORD_HASH_PARALLELISM: '1' });
    const hash = await hasher.hash('correct horse');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=2,p=1\$/);
    await expect(hasher.verify(hash, 'correct horse')).resolves.toBe(true);
    await expect(hasher.verify(hash, 'wrong horse')).resolves.toBe(false);
    await expect(hasher.verify('not a hash', 'correct horse')).resolves.toBe(false);
  });

  it('verifies an unknown account against a hash of the same cost, and refuses it', async () => {
    const hasher = hasherWith({ PASSWORD_HASH_MEMORY_KIB: '2048', PASSWORD_HASH_ITERATIONS: '2', PASSWORD_HASH_PARALLELISM: '1' });
    await expect(hasher.verify(undefined, 'correct horse')).resolves.toBe(false);
    expect(argon2.verify).toHaveBeenCalledWith(expect.stringMatching(/^\$argon2id\$v=19\$m=2048,t=2,p=1\$/), 'correct horse');
  });
});
