import { ApiProperty } from '@nestjs/swagger';
import { EVENT_KINDS, EventKind } from '@app/common';
import { EventEntity, toEventPayload } from '@app/database';

class EventDataView {
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The affected record.' })
  object: Record<string, unknown>;
}

/** An event as listed and as delivered to webhooks (decisions 11). */
export class EventView {
  @ApiProperty({ example: 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  id: string;

  @ApiProperty({ enum: [...EVENT_KINDS] })
  type: EventKind;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: EventDataView })
  data: EventDataView;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  previous_data: Record<string, unknown> | null;
}

export function toEventView(event: EventEntity): EventView {
  return toEventPayload(event) as EventView;
}
