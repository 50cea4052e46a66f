import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import type { EventKind } from '@app/common';
import type { WebhookStatus } from '@app/database';

const WEBHOOK_STATUSES: readonly WebhookStatus[] = ['enabled', 'disabled', 'paused'];
import { WebhookDescriptionField, WebhookEventsField, WebhookSecretField, WebhookUrlField, WhenSent } from './webhook-fields';

export class UpdateWebhookDto {
  @WebhookUrlField(false)
  url?: string;

  @WebhookEventsField(false)
  events?: EventKind[];

  @WebhookSecretField()
  secret?: string;

  @WebhookDescriptionField()
  description?: string | null;

  @ApiPropertyOptional({
    enum: [...WEBHOOK_STATUSES],
    description:
      '`paused` holds deliveries (events still make them, `pending` with `next_attempt_at: null`, but nothing is sent, ' +
      'and the webhook is never disabled meanwhile); `enabled` re-enables a disabled webhook and sends every held ' +
      'delivery, oldest first.',
    example: 'paused',
  })
  @WhenSent()
  @IsIn(WEBHOOK_STATUSES, { message: 'must be enabled, disabled or paused' })
  status?: WebhookStatus;
}
