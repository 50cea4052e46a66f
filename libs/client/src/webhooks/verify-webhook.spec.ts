import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from './verify-webhook';

/** A delivery signed as the worker signs it (apps/worker/src/delivery/webhook-signature.ts). */
function signedDelivery(secret: string, body: string, timestampSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  const id = 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X';
  // The Standard Webhooks reference library signs with a whsec_ secret; another secret is keyed
  // with its UTF-8 bytes, which that library does not do (it would read the secret as base64).
  const standard = secret.startsWith('whsec_')
    ? new Webhook(secret).sign(id, new Date(timestampSeconds * 1000), body)
    : `v1,${createHmac('sha256', secret).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
  return {
    'x-webhook-signature': createHmac('sha256', secret).update(body).digest('hex'),
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standard,
  };
}

const WHSEC = `whsec_${randomBytes(24).toString('base64')}`;
const body = JSON.stringify({
  id: 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X',
  type: 'resource.created',
  created_at: '2025-11-21T09:30:00.000Z',
  data: { object: { id: 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X', name: 'Ünïcode ✓' } },
  previous_data: null,
});

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof WebhookVerificationError)) throw new Error(`expected a WebhookVerificationError, got ${String(error)}`);
  return error;
}

describe('verifyWebhook', () => {
  it('returns the event of a delivery signed by both schemes, from a string or the raw bytes', async () => {
    const headers = signedDelivery(WHSEC, body);
    await expect(verifyWebhook(body, headers, WHSEC)).resolves.toMatchObject({ id: 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X', type: 'resource.created' });
    await expect(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), WHSEC)).resolves.toMatchObject({
      data: { object: { name: 'Ünïcode ✓' } },
    });
  });

  it('keys the Standard scheme with the UTF-8 bytes of a secret without the whsec_ prefix', async () => {
    const secret = 'a-plain-secret-of-32-characters!';
    const standardOnly = { schemes: ['standard-webhooks'] as const };
    await expect(verifyWebhook(body, signedDelivery(secret, body), secret, standardOnly)).resolves.toMatchObject({ type: 'resource.created' });
  });

  it('accepts any of several v1 signatures (a secret being rotated)', async () => {
    const headers = signedDelivery(WHSEC, body);
    headers['webhook-signature'] = `v1,${randomBytes(32).toString('base64')} ${headers['webhook-signature']}`;
    await expect(verifyWebhook(body, headers, WHSEC)).resolves.toBeDefined();
  });

  it('refuses a body changed after signing, whichever scheme is checked', async () => {
    const headers = signedDelivery(WHSEC, body);
    const altered = body.replace('resource.created', 'resource.deleted');
    expect((await refusal(verifyWebhook(altered, headers, WHSEC))).reason).toBe('signature_mismatch');
    const hexOnly = { 'x-webhook-signature': headers['x-webhook-signature'] };
    expect((await refusal(verifyWebhook(altered, hexOnly, WHSEC, { allowLegacyHexOnly: true }))).reason).toBe('signature_mismatch');
  });

  it('refuses another secret, and a valid scheme beside a forged one', async () => {
    const headers = signedDelivery(WHSEC, body);
    expect((await refusal(verifyWebhook(body, headers, `whsec_${randomBytes(24).toString('base64')}`))).reason).toBe(
      'signature_mismatch',
    );
    const forgedHex = { ...headers, 'x-webhook-signature': 'ab'.repeat(32) };
    expect((await refusal(verifyWebhook(body, forgedHex, WHSEC))).reason).toBe('signature_mismatch');
  });

  it('refuses a timestamp outside the tolerance, past or future', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 301, now + 301]) {
      const error = await refusal(verifyWebhook(body, signedDelivery(WHSEC, body, timestamp), WHSEC));
      expect(error.reason).toBe('timestamp_outside_tolerance');
    }
    await expect(verifyWebhook(body, signedDelivery(WHSEC, body, now - 3000), WHSEC, { toleranceSeconds: 3600 })).resolves.toBeDefined();
  });

  it('needs a signature of a scheme checked', async () => {
    expect((await refusal(verifyWebhook(body, {}, WHSEC))).reason).toBe('missing_signature');
    const hexOnly = { 'X-Webhook-Signature': signedDelivery(WHSEC, body)['x-webhook-signature'] };
    const error = await refusal(verifyWebhook(body, hexOnly, WHSEC, { schemes: ['standard-webhooks'], allowLegacyHexOnly: true }));
    expect(error.reason).toBe('missing_signature');
  });

  describe('a delivery replayed without its Standard Webhooks headers', () => {
    const anHourAgo = Math.floor(Date.now() / 1000) - 3600;
    const captured = signedDelivery(WHSEC, body, anHourAgo);
    const stripped = { 'x-webhook-signature': captured['x-webhook-signature'] };

    it('is refused as sent, an hour later, by its timestamp', async () => {
      expect((await refusal(verifyWebhook(body, captured, WHSEC))).reason).toBe('timestamp_outside_tolerance');
    });

    it('is refused by default, saying what is missing and what would accept it', async () => {
      const error = await refusal(verifyWebhook(body, stripped, WHSEC));
      expect(error.reason).toBe('missing_signature');
      expect(error.message).toContain('no Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature)');
      expect(error.message).toContain('allowLegacyHexOnly: true');
      const withoutSignatureOnly = { ...captured, 'webhook-signature': undefined };
      expect((await refusal(verifyWebhook(body, withoutSignatureOnly, WHSEC))).reason).toBe('missing_signature');
      expect((await refusal(verifyWebhook(body, captured, WHSEC, { schemes: ['x-webhook-signature'] }))).reason).toBe('missing_signature');
    });

    it('is accepted on the hex signature alone when allowLegacyHexOnly is set', async () => {
      await expect(verifyWebhook(body, stripped, WHSEC, { allowLegacyHexOnly: true })).resolves.toMatchObject({ type: 'resource.created' });
      await expect(verifyWebhook(body, captured, WHSEC, { schemes: ['x-webhook-signature'], allowLegacyHexOnly: true })).resolves.toBeDefined();
    });

    it('does not make a genuine delivery need the option', async () => {
      await expect(verifyWebhook(body, signedDelivery(WHSEC, body), WHSEC)).resolves.toMatchObject({ type: 'resource.created' });
    });
  });

  it('calls unreadable signature headers malformed', async () => {
    const headers = signedDelivery(WHSEC, body);
    const notHex = { 'x-webhook-signature': 'not hex' };
    expect((await refusal(verifyWebhook(body, notHex, WHSEC, { allowLegacyHexOnly: true }))).reason).toBe('malformed_signature');
    const noTimestamp = { ...headers, 'webhook-timestamp': 'yesterday' };
    expect((await refusal(verifyWebhook(body, noTimestamp, WHSEC, { schemes: ['standard-webhooks'] }))).reason).toBe(
      'malformed_signature',
    );
  });

  it('refuses a correctly signed body that is not an event', async () => {
    const notAnEvent = '["signed", "but", "not", "an", "event"]';
    expect((await refusal(verifyWebhook(notAnEvent, signedDelivery(WHSEC, notAnEvent), WHSEC))).reason).toBe('invalid_payload');
  });
});
