import { ApiKeyEntity } from './api-key.entity';
import { EventEntity } from './event.entity';
import { LegacyTokenEntity } from './legacy-token.entity';
import { RefreshTokenEntity } from './refresh-token.entity';
import { UserEntity } from './user.entity';

export { ApiKeyEntity, EventEntity, LegacyTokenEntity, RefreshTokenEntity, UserEntity };

/** Every entity, for the data source; a new entity is added here. */
export const ENTITIES = [UserEntity, EventEntity, RefreshTokenEntity, ApiKeyEntity, LegacyTokenEntity];
