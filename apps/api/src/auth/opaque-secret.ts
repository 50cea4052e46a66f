import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The largest multiple of 62 below 256: bytes at or above it are dropped so every character is equally likely. */
const UNBIASED_LIMIT = 248;

/** Random base62 characters (about 5.95 bits each): no separators, so a double-click selects the whole secret. */
export function newOpaqueSecret(length = 43): string {
  let secret = '';
  while (secret.length < length) {
    for (const byte of randomBytes(length)) {
      if (byte >= UNBIASED_LIMIT) continue;
      secret += BASE62[byte % 62];
      if (secret.length === length) break;
    }
  }
  return secret;
}

/**
 * SHA-256 of a secret, hex. Enough for high-entropy secrets (API keys, session and legacy
 * tokens): a fast hash lets the secret be looked up by its hash, and no guessing is feasible.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings. */
export function secretsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
