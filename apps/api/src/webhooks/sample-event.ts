import { EventKind, EventPayload, newId, PaymentObject } from '@app/common';

const SAMPLE_USER_ID = 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X';

function samplePayment(status: PaymentObject['status'], now: string): PaymentObject {
  return {
    id: 'pay_01JD3Q0F6K8W2M4N6P8R0T2V4X',
    object: 'payment',
    amount: 4900,
    currency: 'usd',
    status,
    failure_reason: status === 'failed' ? 'card_declined' : null,
    customer_id: SAMPLE_USER_ID,
    created_at: now,
  };
}

/** The record a real event of the kind carries: the full view, as the document's webhooks section types it. */
function sampleObject(kind: EventKind, now: string): Record<string, unknown> {
  if (kind === 'payment.succeeded') return { ...samplePayment('succeeded', now) };
  if (kind === 'payment.failed') return { ...samplePayment('failed', now) };
  if (kind.startsWith('user.')) {
    return {
      id: SAMPLE_USER_ID,
      email: 'ada@example.com',
      username: 'ada',
      role: 'user',
      plan: 'free',
      profile: { first_name: 'Ada', last_name: 'Lovelace', avatar_url: null },
      created_at: now,
      updated_at: now,
    };
  }
  return {
    id: 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X',
    name: 'Sample resource',
    description: null,
    type: 'standard',
    status: 'active',
    metadata: {},
    tags: [],
    owner_id: SAMPLE_USER_ID,
    organization_id: null,
    created_at: now,
    updated_at: now,
    deleted_at: kind === 'resource.deleted' ? now : null,
  };
}

/** The prior values of what an update changed, in the shape of the kind's `previous_data`. */
function samplePreviousData(kind: EventKind): Record<string, unknown> | null {
  if (kind === 'resource.updated') return { name: 'Previous name' };
  if (kind === 'user.updated') return { plan: 'pro' };
  return null;
}

/** A realistic event of the kind for test triggers; its id is fresh, so receivers do not dedupe it away. */
export function sampleEvent(kind: EventKind): EventPayload {
  const now = new Date().toISOString();
  return {
    id: newId('evt'),
    type: kind,
    created_at: now,
    data: { object: sampleObject(kind, now) },
    previous_data: samplePreviousData(kind),
  };
}
