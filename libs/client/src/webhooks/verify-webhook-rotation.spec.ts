import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, verifyWebhookWithAnySecret, WebhookVerificationError } from './verify-webhook';

const NEW = `whsec_${randomBytes(24).toString('base64')}`;
const PREVIOUS = `whsec_${randomBytes(24).toString('base64')}`;
const OTHER = `whsec_${randomBytes(24).toString('base64')}`;
const id = 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X';
const body = JSON.stringify({ id, type: 'resource.created', created_at: '2025-11-21T09:30:00.000Z', data: { object: {} }, previous_data: null });

/** A delivery signed during a rotation's overlap, as the worker signs it (docs/webhooks.md#rotating-the-secret). */
function overlapDelivery(): Record<string, string> {
  const now = new Date();
  const hex = (secret: string): string => createHmac('sha256', secret).update(body).digest('hex');
  return {
    'x-webhook-signature': hex(NEW),
    'x-webhook-signature-previous': hex(PREVIOUS),
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': `${new Webhook(NEW).sign(id, now, body)} ${new Webhook(PREVIOUS).sign(id, now, body)}`,
  };
}

describe('verifyWebhook during a secret rotation', () => {
  it('accepts a delivery with the new secret and with the previous one, in both schemes', async () => {
    const headers = overlapDelivery();
    for (const secret of [NEW, PREVIOUS]) {
      await expect(verifyWebhook(body, headers, secret)).resolves.toMatchObject({ id });
      await expect(verifyWebhook(body, headers, secret, { schemes: ['x-webhook-signature'], allowLegacyHexOnly: true })).resolves.toMatchObject({ id });
      await expect(verifyWebhook(body, headers, secret, { schemes: ['standard-webhooks'] })).resolves.toMatchObject({ id });
    }
  });

  it('refuses a secret that is neither', async () => {
    await expect(verifyWebhook(body, overlapDelivery(), OTHER)).rejects.toMatchObject({ reason: 'signature_mismatch' });
  });

  it('refuses a tampered body whichever secret is asked', async () => {
    const headers = overlapDelivery();
    await expect(verifyWebhook(body.replace('created', 'deleted'), headers, PREVIOUS)).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});

describe('verifyWebhookWithAnySecret', () => {
  it('verifies with whichever of the secrets signed the delivery', async () => {
    const afterOverlap = overlapDelivery();
    delete afterOverlap['x-webhook-signature-previous'];
    afterOverlap['webhook-signature'] = afterOverlap['webhook-signature'].split(' ')[0];
    await expect(verifyWebhookWithAnySecret(body, afterOverlap, [PREVIOUS, NEW])).resolves.toMatchObject({ id });
    await expect(verifyWebhookWithAnySecret(body, overlapDelivery(), [OTHER, PREVIOUS])).resolves.toMatchObject({ id });
  });

  it('answers the refusal of the last secret when none verifies, and refuses an empty list', async () => {
    await expect(verifyWebhookWithAnySecret(body, overlapDelivery(), [OTHER])).rejects.toMatchObject({ reason: 'signature_mismatch' });
    await expect(verifyWebhookWithAnySecret(body, overlapDelivery(), [])).rejects.toMatchObject({ reason: 'missing_signature' });
  });
});
