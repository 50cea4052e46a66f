import { createHmac } from 'node:crypto';

const STANDARD_SECRET_PREFIX = 'whsec_';

/**
 * The signing headers of one delivery (docs/api.md#webhook-delivery): `X-Webhook-Signature`, the lowercase
 * hex HMAC-SHA256 of the exact body keyed with the secret's UTF-8 bytes; and the Standard
 * Webhooks trio, whose HMAC covers `{id}.{timestamp}.{body}` so a receiver can refuse replays.
 * Standard Webhooks libraries key a `whsec_` secret with its decoded base64 part.
 *
 * While a rotation overlaps (`previousSecret` given), each is signed with both secrets:
 * `webhook-signature: v1,<new> v1,<previous>` (the Standard Webhooks list), `X-Webhook-Signature`
 * with the new one and `X-Webhook-Signature-Previous` with the previous one.
 */
export function signatureHeaders(
  secret: string,
  event: { id: string; type: string },
  body: string,
  timestampSeconds: number,
  previousSecret: string | null = null,
): Record<string, string> {
  const secrets = previousSecret === null ? [secret] : [secret, previousSecret];
  const standardSignatures = secrets.map((key) => `v1,${standardSignature(key, `${event.id}.${timestampSeconds}.${body}`)}`);
  return {
    'Content-Type': 'application/json',
    'X-Webhook-Signature': hexSignature(secret, body),
    ...(previousSecret === null ? {} : { 'X-Webhook-Signature-Previous': hexSignature(previousSecret, body) }),
    'X-Webhook-Event-Id': event.id,
    'X-Webhook-Event-Type': event.type,
    'webhook-id': event.id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standardSignatures.join(' '),
  };
}

// Keys are given as strings with their encoding, which Node decodes as Buffer.from would: on
// Node 24 a Buffer key costs createHmac four times the HMAC itself (its key-type checks).
function hexSignature(secret: string, body: string): string {
  return createHmac('sha256', secret, { encoding: 'utf8' }).update(body).digest('hex');
}

function standardSignature(secret: string, signed: string): string {
  const key = secret.startsWith(STANDARD_SECRET_PREFIX)
    ? createHmac('sha256', secret.slice(STANDARD_SECRET_PREFIX.length), { encoding: 'base64' })
    : createHmac('sha256', secret, { encoding: 'utf8' });
  return key.update(signed).digest('base64');
}
