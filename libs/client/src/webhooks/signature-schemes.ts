import { concatBytes, fromBase64, fromHex, utf8 } from './bytes';

/** A header lookup, case-insensitive whatever form the headers came in. */
export type HeaderReader = (name: string) => string | undefined;

/** Why a signature was refused; WebhookVerificationError carries it as `reason`. */
export type SignatureFailure = 'malformed_signature' | 'signature_mismatch' | 'timestamp_outside_tolerance';

export interface SignatureScheme {
  /** Whether the delivery carries this scheme's headers. */
  presentIn(header: HeaderReader): boolean;
  /** Null when the signature holds, else why not. */
  check(body: Uint8Array, header: HeaderReader, secret: string, toleranceSeconds: number): Promise<SignatureFailure | null>;
}

const STANDARD_SECRET_PREFIX = 'whsec_';

async function hmacMatches(key: Uint8Array<ArrayBuffer>, signature: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>): Promise<boolean> {
  const subtle = globalThis.crypto.subtle;
  const hmacKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  // WebCrypto's verify compares in constant time.
  return subtle.verify('HMAC', hmacKey, signature, data);
}

/**
 * `X-Webhook-Signature`: lowercase hex HMAC-SHA256 of the raw body, keyed with the secret's UTF-8
 * bytes; during a secret rotation `X-Webhook-Signature-Previous` carries the one of the previous
 * secret, and either may match.
 */
export const hexSignature: SignatureScheme = {
  presentIn: (header) => header('x-webhook-signature') !== undefined,
  check: async (body, header, secret) => {
    const signature = fromHex(header('x-webhook-signature') ?? '');
    if (!signature || signature.length !== 32) return 'malformed_signature';
    // concatBytes copies the body over an ArrayBuffer of its own, as WebCrypto's types require.
    if (await hmacMatches(utf8(secret), signature, concatBytes(body))) return null;
    const previous = fromHex(header('x-webhook-signature-previous') ?? '');
    if (previous && previous.length === 32 && (await hmacMatches(utf8(secret), previous, concatBytes(body)))) return null;
    return 'signature_mismatch';
  },
};

/**
 * Standard Webhooks: `webhook-signature: v1,<base64>` (several, space-separated, during a secret
 * rotation) over `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64 part of a
 * `whsec_` secret or else the secret's UTF-8 bytes. The timestamp must be within the tolerance
 * of now, which refuses a replayed delivery.
 */
export const standardWebhooksSignature: SignatureScheme = {
  presentIn: (header) => header('webhook-signature') !== undefined,
  check: async (body, header, secret, toleranceSeconds) => {
    const id = header('webhook-id');
    const timestamp = header('webhook-timestamp') ?? '';
    const key = secret.startsWith(STANDARD_SECRET_PREFIX) ? fromBase64(secret.slice(STANDARD_SECRET_PREFIX.length)) : utf8(secret);
    if (!id || !/^\d+$/.test(timestamp) || !key) return 'malformed_signature';
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return 'timestamp_outside_tolerance';
    const signatures = (header('webhook-signature') ?? '')
      .split(' ')
      .filter((entry) => entry.startsWith('v1,'))
      .map((entry) => fromBase64(entry.slice(3)))
      .filter((signature) => signature !== null);
    const signed = concatBytes(utf8(`${id}.${timestamp}.`), body);
    for (const signature of signatures) if (await hmacMatches(key, signature, signed)) return null;
    return 'signature_mismatch';
  },
};
