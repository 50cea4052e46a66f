import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString } from 'class-validator';
import { EVENT_KINDS, EventKind, idPattern } from '@app/common';
import { WhenSent } from './webhook-fields';

const EVENT_TYPE_MESSAGE = `must be one of ${EVENT_KINDS.join(', ')}`;

/** Body of `POST /webhooks/{id}/test`: the kind of sample event, by default the first subscribed. */
export class TestWebhookDto {
  @ApiPropertyOptional({ enum: [...EVENT_KINDS], description: 'The kind of sample event; by default the first the webhook subscribes to.', example: 'resource.created' })
  @WhenSent()
  @IsIn(EVENT_KINDS, { message: EVENT_TYPE_MESSAGE })
  event_type?: EventKind;
}

/** Body of `POST /webhooks/test`. */
export class TestAnyWebhookDto extends TestWebhookDto {
  @ApiProperty({ pattern: idPattern('wh'), description: 'One of your webhooks; any other is 404.', example: 'wh_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  @IsString({ message: 'must be a webhook id' })
  webhook_id: string;
}
