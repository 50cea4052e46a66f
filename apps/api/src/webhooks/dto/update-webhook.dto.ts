import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import type { EventKind } from '@app/common';
import type { WebhookStatus } from '@app/database';
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

  @ApiPropertyOptional({ enum: ['enabled', 'disabled'], description: '`enabled` re-enables a disabled webhook.', example: 'enabled' })
  @WhenSent()
  @IsIn(['enabled', 'disabled'], { message: 'must be enabled or disabled' })
  status?: WebhookStatus;
}
