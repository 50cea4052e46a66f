import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { EVENT_KINDS, EventKind } from '@app/common';

const EVENT_TYPE_MESSAGE = `must be one of ${EVENT_KINDS.join(', ')}`;

/** Body of `POST /webhooks/{id}/test`: the kind of sample event, by default the first subscribed. */
export class TestWebhookDto {
  @ApiPropertyOptional({ enum: [...EVENT_KINDS] })
  @IsOptional()
  @IsIn(EVENT_KINDS, { message: EVENT_TYPE_MESSAGE })
  event_type?: EventKind;
}

/** Body of `POST /webhooks/test`. */
export class TestAnyWebhookDto extends TestWebhookDto {
  @ApiProperty({ example: 'wh_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  @IsString({ message: 'must be a webhook id' })
  webhook_id: string;
}
