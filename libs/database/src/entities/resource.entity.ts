import { Column, Entity, PrimaryColumn } from 'typeorm';

export const RESOURCE_TYPES = ['standard', 'premium'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** The earlier API's third type; writes naming it are refused, filters on it match nothing. */
export const LEGACY_RESOURCE_TYPE = 'enterprise';

export const RESOURCE_STATUSES = ['active', 'archived'] as const;
export type ResourceStatus = (typeof RESOURCE_STATUSES)[number];

export type ResourceMetadataValue = string | number | boolean | null;
export type ResourceMetadata = Record<string, ResourceMetadataValue>;

/**
 * A resource. The API reads and writes this table with raw SQL in ResourceRepository (hot
 * paths); the entity describes the table for TypeORM and for other modules' queries.
 * Timestamps have millisecond precision so that the values in cursors and views are exact.
 */
@Entity('resources')
export class ResourceEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'owner_id' })
  ownerId: string;

  @Column('text', { name: 'organization_id', nullable: true })
  organizationId: string | null;

  @Column('text')
  name: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text')
  type: ResourceType;

  @Column('text')
  status: ResourceStatus;

  @Column('jsonb')
  metadata: ResourceMetadata;

  @Column('jsonb')
  tags: string[];

  /** Incremented by every write; the strong ETag is `"<version>"`. */
  @Column('integer')
  version: number;

  @Column('timestamp with time zone', { name: 'created_at', precision: 3 })
  createdAt: Date;

  @Column('timestamp with time zone', { name: 'updated_at', precision: 3 })
  updatedAt: Date;

  @Column('timestamp with time zone', { name: 'deleted_at', precision: 3, nullable: true })
  deletedAt: Date | null;
}
