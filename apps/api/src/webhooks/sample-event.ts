import { EventKind, EventPayload, newId, PaymentObject } from '@app/common';

function samplePayment(status: PaymentObject['status'], now: string): PaymentObject {
  return {
    id: 'pay_01JD3Q0F6K8W2M4N6P8R0T2V4X',
    object: 'payment',
    amount: 4900,
    currency: 'usd',
    status,
    failure_reason: status === 'failed' ? 'card_declined' : null,
    customer_id: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X',
    created_at: now,
  };
}

function sampleObject(kind: EventKind, now: string): Record<string, unknown> {
  if (kind === 'payment.succeeded') return { ...samplePayment('succeeded', now) };
  if (kind === 'payment.failed') return { ...samplePayment('failed', now) };
  if (kind.startsWith('user.')) {
    return { id: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X', email: 'ada@example.com', username: 'ada', created_at: now };
  }
  return { id: 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X', name: 'Sample resource', type: 'standard', status: 'active', created_at: now };
}

/** A realistic event of the kind for test triggers; its id is fresh, so receivers do not dedupe it away. */
export function sampleEvent(kind: EventKind): EventPayload {
  const now = new Date().toISOString();
  return {
    id: newId('evt'),
    type: kind,
    created_at: now,
    data: { object: sampleObject(kind, now) },
    previous_data: kind.endsWith('.updated') ? { name: 'Previous name' } : null,
  };
}
