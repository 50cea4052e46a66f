import { createHmac } from 'node:crypto';

const STANDARD_SECRET_PREFIX = 'whsec_';

/**
 * The signing headers of one delivery (docs/api.md#webhook-delivery): `X-Webhook-Signature`, the lowercase
 * hex HMAC-SHA256 of the exact body keyed with the secret's UTF-8 bytes; and the Standard
 * Webhooks trio, whose HMAC covers `{id}.{timestamp}.{body}` so a receiver can refuse replays.
 * Standard Webhooks libraries key a `whsec_` secret with its decoded base64 part.
 */
export function signatureHeaders(
  secret: string,
  event: { id: string; type: string },
  body: string,
  timestampSeconds: number,
): Record<string, string> {
  const standardKey = secret.startsWith(STANDARD_SECRET_PREFIX)
    ? Buffer.from(secret.slice(STANDARD_SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
  const standardSignature = createHmac('sha256', standardKey)
    .update(`${event.id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return {
    'Content-Type': 'application/json',
    'X-Webhook-Signature': createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex'),
    'X-Webhook-Event-Id': event.id,
    'X-Webhook-Event-Type': event.type,
    'webhook-id': event.id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${standardSignature}`,
  };
}
