/**
 * Every kind of event the service knows, declared once: webhook subscriptions, the event
 * listing and the delivery payload all refer to this list.
 */
export const EVENT_KINDS = [
  'resource.created',
  'resource.updated',
  'resource.deleted',
  'user.created',
  'user.updated',
  'payment.succeeded',
  'payment.failed',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/** A payment as carried by `payment.*` events; nothing in the service emits them yet. */
export interface PaymentObject {
  id: string;
  object: 'payment';
  amount: number;
  currency: string;
  status: 'succeeded' | 'failed';
  failure_reason: string | null;
  customer_id: string;
  created_at: string;
}

/** The record carried in `data.object` by each kind of event. */
export interface EventObjectByKind {
  'resource.created': Record<string, unknown>;
  'resource.updated': Record<string, unknown>;
  'resource.deleted': Record<string, unknown>;
  'user.created': Record<string, unknown>;
  'user.updated': Record<string, unknown>;
  'payment.succeeded': PaymentObject;
  'payment.failed': PaymentObject;
}

/** The JSON body posted to a webhook (docs/api.md#event-payload). */
export interface EventPayload<K extends EventKind = EventKind> {
  id: string;
  type: K;
  created_at: string;
  data: { object: EventObjectByKind[K] };
  previous_data: Record<string, unknown> | null;
}

export function isEventKind(value: unknown): value is EventKind {
  return typeof value === 'string' && (EVENT_KINDS as readonly string[]).includes(value);
}
