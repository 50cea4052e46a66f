import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from './webhook-signature';

const NEW = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const PREVIOUS = 'a-previous-secret-of-utf8';
const event = { id: 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X', type: 'resource.created' };
const body = '{"id":"evt_01JD3Q0F6K8W2M4N6P8R0T2V4X"}';
const hex = (secret: string): string => createHmac('sha256', secret).update(body).digest('hex');

describe('signatureHeaders (decisions §14: secret rotation)', () => {
  it('signs with the secret alone when no rotation overlaps', () => {
    const headers = signatureHeaders(NEW, event, body, 1763717400);
    expect(headers['X-Webhook-Signature']).toBe(hex(NEW));
    expect(headers).not.toHaveProperty('X-Webhook-Signature-Previous');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(1);
  });

  it("keys each HMAC with the secret's bytes: UTF-8, or a whsec_ secret's base64 part (fixed vectors)", () => {
    const headers = signatureHeaders('clé-secrète-ünïcode-16+', event, body, 1763717400, NEW);
    expect(headers['X-Webhook-Signature']).toBe('fff40134ef65f3828ad1f301cbf868735ade636e7e9ca8a67915fa23314456bc');
    expect(headers['webhook-signature']).toBe('v1,wL91pBnENM/C8A0Gv7VOF+K9Qg80Z8vl8PechOANgKg= v1,HVtyGrM3IMjBqlEhzY4c7pWs9EpdEBkzE8DoAtqPhBA=');
  });

  it('signs with both secrets during an overlap: the new one first in webhook-signature', () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders(NEW, event, body, timestamp, PREVIOUS);
    expect(headers['X-Webhook-Signature']).toBe(hex(NEW));
    expect(headers['X-Webhook-Signature-Previous']).toBe(hex(PREVIOUS));
    const [fresh, previous] = headers['webhook-signature'].split(' ');
    expect(fresh).toBe(new Webhook(NEW).sign(event.id, new Date(timestamp * 1000), body));
    const previousKey = createHmac('sha256', PREVIOUS).update(`${event.id}.${timestamp}.${body}`).digest('base64');
    expect(previous).toBe(`v1,${previousKey}`);
    // An off-the-shelf Standard Webhooks verifier holding only the new secret accepts the list.
    expect(new Webhook(NEW).verify(body, { 'webhook-id': event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': headers['webhook-signature'] })).toEqual(JSON.parse(body));
  });
});
