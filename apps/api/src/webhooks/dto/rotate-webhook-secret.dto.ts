import { OverlapSecondsField } from '../../platform/validation/time-fields';
import { WebhookSecretField } from './webhook-fields';

/** Body of `POST /webhooks/{id}/secret/rotate`: the new secret (generated when omitted) and how long the previous one lasts. */
export class RotateWebhookSecretDto {
  @WebhookSecretField()
  secret?: string;

  @OverlapSecondsField('Seconds deliveries stay signed with the previous secret too, 0 (not at all) to 604800 (seven days); default 86400 (a day).')
  expires_in?: number | null;
}
