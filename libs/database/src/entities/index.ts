import { EventEntity } from './event.entity';
import { RefreshTokenEntity } from './refresh-token.entity';
import { UserEntity } from './user.entity';

export { EventEntity, RefreshTokenEntity, UserEntity };

/** Every entity, for the data source; a new entity is added here. */
export const ENTITIES = [UserEntity, EventEntity, RefreshTokenEntity];
