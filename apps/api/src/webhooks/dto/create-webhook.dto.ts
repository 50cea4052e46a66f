import type { EventKind } from '@app/common';
import { WebhookDescriptionField, WebhookEventsField, WebhookSecretField, WebhookUrlField } from './webhook-fields';

export class CreateWebhookDto {
  @WebhookUrlField(true)
  url: string;

  @WebhookEventsField(true)
  events: EventKind[];

  @WebhookSecretField()
  secret?: string;

  @WebhookDescriptionField()
  description?: string | null;
}
