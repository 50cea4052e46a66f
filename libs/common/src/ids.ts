import { randomBytes } from 'node:crypto';

export const ID_PREFIX = {
  resource: 'res',
  user: 'usr',
  apiKey: 'key',
  webhook: 'wh',
  event: 'evt',
  organization: 'org',
  oauthClient: 'cli',
  delivery: 'dlv',
  request: 'req',
  refreshToken: 'rtk',
  session: 'ses',
  oauthToken: 'otk',
  oauthGrant: 'ogr',
} as const;

export type IdPrefix = (typeof ID_PREFIX)[keyof typeof ID_PREFIX];

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const OPAQUE_LENGTH = 26;
const OPAQUE_PATTERN = new RegExp(`^[${CROCKFORD}]{${OPAQUE_LENGTH}}$`);

/** The shape of an id of one kind, as a regular expression source (for the OpenAPI document). */
export function idPattern(prefix: IdPrefix): string {
  return `^${prefix}_[${CROCKFORD}]{${OPAQUE_LENGTH}}$`;
}

/** Random bytes drawn from a pooled buffer: one call into the CSPRNG per 409 ids, not per id. */
const RANDOM_POOL_SIZE = 4096;
let randomPool = Buffer.alloc(0);
let randomOffset = 0;

function randomSlice(length: number): Buffer {
  if (randomOffset + length > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_SIZE);
    randomOffset = 0;
  }
  const slice = randomPool.subarray(randomOffset, randomOffset + length);
  randomOffset += length;
  return slice;
}

/**
 * A ULID-shaped opaque part: 48 bits of milliseconds then 80 random bits, Crockford base32.
 * Time first keeps b-tree inserts on the right edge of the index.
 */
export function newOpaqueId(now: number = Date.now()): string {
  let time = '';
  let remaining = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[remaining % 32] + time;
    remaining = Math.floor(remaining / 32);
  }
  const random = randomSlice(10);
  let bits = 0;
  let value = 0;
  let tail = '';
  for (const byte of random) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      tail += CROCKFORD[(value >> bits) & 31];
    }
    value &= (1 << bits) - 1;
  }
  return time + tail;
}

export function newId(prefix: IdPrefix, now?: number): string {
  return `${prefix}_${newOpaqueId(now)}`;
}

/** True when the value has the given prefix and a well-formed opaque part. */
export function isId(prefix: IdPrefix, value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length === prefix.length + 1 + OPAQUE_LENGTH &&
    value.startsWith(`${prefix}_`) &&
    OPAQUE_PATTERN.test(value.slice(prefix.length + 1))
  );
}
