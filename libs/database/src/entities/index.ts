import { ApiKeyEntity } from './api-key.entity';
import { EventEntity } from './event.entity';
import { LegacyTokenEntity } from './legacy-token.entity';
import { RefreshTokenEntity } from './refresh-token.entity';
import { ResourceEntity } from './resource.entity';
import { UserEntity } from './user.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';

export { ApiKeyEntity, EventEntity, LegacyTokenEntity, RefreshTokenEntity, ResourceEntity, UserEntity };
export * from './resource.entity';
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
  ResourceEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
];
