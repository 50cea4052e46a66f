import type { EventPayload } from '@app/common';
import { EventEntity, toEventPayload } from '@app/database';

/**
 * An event as listed and as delivered to webhooks (docs/api.md#event-payload). Its OpenAPI schema is one per
 * kind, with `data.object` typed (event.openapi.ts).
 */
export type EventView = EventPayload;

export function toEventView(event: EventEntity): EventView {
  return toEventPayload(event);
}
