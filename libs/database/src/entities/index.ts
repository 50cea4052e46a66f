import { ApiKeyEntity } from './api-key.entity';
import { EventEntity } from './event.entity';
import { OrganizationEntity, OrganizationMemberEntity } from './organization.entity';
import { LegacyTokenEntity } from './legacy-token.entity';
import { RefreshTokenEntity } from './refresh-token.entity';
import { UserEntity } from './user.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';

export { ApiKeyEntity, EventEntity, LegacyTokenEntity, OrganizationEntity, OrganizationMemberEntity, RefreshTokenEntity, UserEntity };
export * from './organization.entity';
export { toEventPayload } from './event.entity';
export * from './webhook.entity';
export * from './webhook-delivery.entity';

/** Every entity, for the data source; a new entity is added here. */
export const ENTITIES = [
  UserEntity,
  EventEntity,
  RefreshTokenEntity,
  ApiKeyEntity,
  LegacyTokenEntity,
  OrganizationEntity,
  OrganizationMemberEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
];
