import type { DeliveryAttempt, WebhookDeliveryEntity } from '@app/database';
import { toDeliveryView } from './webhook.view';

describe('toDeliveryView', () => {
  const delivery = (attempts: DeliveryAttempt[]): WebhookDeliveryEntity => ({
    id: 'dlv_01JD3Q0F6K8W2M4N6P8R0T2V4X',
    webhookId: 'wh_01JD3Q0F6K8W2M4N6P8R0T2V4X',
    eventId: 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X',
    eventType: 'resource.created',
    body: '{}',
    test: false,
    status: 'succeeded',
    attempts,
    scheduleStart: 0,
    nextAttemptAt: null,
    createdAt: new Date('2025-11-21T09:30:00.000Z'),
    updatedAt: new Date('2025-11-21T09:30:01.000Z'),
  });
  const answered = { attempted_at: '2025-11-21T09:30:00.500Z', status_code: 200, duration_ms: 12, error: null, response_body: 'ok' };

  it('gives the headers an attempt recorded', () => {
    const requestHeaders = { 'content-type': 'application/json', 'webhook-id': 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X' };
    const responseHeaders = { 'x-receiver': 'yes' };
    const [attempt] = toDeliveryView(delivery([{ ...answered, request_headers: requestHeaders, response_headers: responseHeaders }])).attempts;
    expect(attempt).toEqual({ ...answered, request_headers: requestHeaders, response_headers: responseHeaders });
  });

  it('gives null headers for an attempt recorded before headers were', () => {
    const [attempt] = toDeliveryView(delivery([answered])).attempts;
    expect(attempt).toEqual({ ...answered, request_headers: null, response_headers: null });
  });
});
