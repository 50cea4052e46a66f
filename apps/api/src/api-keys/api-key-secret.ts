import { newOpaqueSecret } from '../auth/opaque-secret';

export type KeyEnvironment = 'live' | 'test';

const SECRET_LENGTH = 43;
/** Characters of the random part shown in `prefix`, enough to tell keys apart, far too few to guess the rest. */
const PREFIX_RANDOM_CHARS = 6;
const KEY_SHAPE = /^sk_(live|test)_([0-9A-Za-z]{32,128})$/;

/** `sk_<environment>_<43 base62 characters>`: about 256 random bits. */
export function newApiKeySecret(environment: KeyEnvironment): string {
  return `sk_${environment}_${newOpaqueSecret(SECRET_LENGTH)}`;
}

/** The part of a secret that may be shown again: `sk_test_Ab12Cd`. */
export function apiKeyPrefix(secret: string): string {
  const random = secret.indexOf('_', 3) + 1;
  return secret.slice(0, random + PREFIX_RANDOM_CHARS);
}

/** The environment a presented key was made for, or null when it does not look like a key. */
export function apiKeyEnvironment(presented: string): KeyEnvironment | null {
  const match = KEY_SHAPE.exec(presented);
  return match ? (match[1] as KeyEnvironment) : null;
}
