import { ApiProperty, IntersectionType, OmitType, PartialType, PickType } from '@nestjs/swagger';
import { idPattern } from '@app/common';
import { RESOURCE_FIELDS, RESOURCE_STATUSES, RESOURCE_TYPES, ResourceField, ResourceListRow, ResourceMetadata, ResourceRecord, ResourceStatus, ResourceType } from './resource.repository';

/** OpenAPI schema of a metadata value: a string (up to 500 characters), number, boolean or null. */
export const METADATA_VALUE_SCHEMA = {
  oneOf: [{ type: 'string', maxLength: 500 }, { type: 'number' }, { type: 'boolean' }],
  nullable: true,
};

/** The list form of a resource. */
export class ResourceListItemView {
  @ApiProperty({ example: 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X', pattern: idPattern('res') })
  id: string;

  @ApiProperty({ example: 'Primary database', maxLength: 100 })
  name: string;

  @ApiProperty({ enum: RESOURCE_TYPES, example: 'standard' })
  type: ResourceType;

  @ApiProperty({ enum: RESOURCE_STATUSES, example: 'active' })
  status: ResourceStatus;

  @ApiProperty({ format: 'date-time', example: '2025-11-21T09:30:00.000Z' })
  created_at: string;

  @ApiProperty({ format: 'date-time', example: '2025-11-21T09:30:00.000Z' })
  updated_at: string;
}

/**
 * The single form of a resource: every write and `GET /resources/{id}` answer with it. It is
 * the repository's `ResourceRecord` less its version (which travels as the ETag); this class
 * only describes it to OpenAPI, and `implements` keeps the two from drifting apart.
 */
export class ResourceView extends ResourceListItemView implements Omit<ResourceRecord, 'version'> {
  @ApiProperty({ type: String, nullable: true, maxLength: 500, example: 'Orders and invoices' })
  description: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: METADATA_VALUE_SCHEMA,
    description: 'Up to 50 keys of 1-40 characters.',
    example: { region: 'eu-west-1', replicas: 3, public: false },
  })
  metadata: ResourceMetadata;

  @ApiProperty({ type: [String], maxItems: 20, example: ['production', 'billing'] })
  tags: string[];

  @ApiProperty({ example: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X', pattern: idPattern('usr') })
  owner_id: string;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'The owning organization (`org_`), or null.' })
  organization_id: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'Always null on a live resource.' })
  deleted_at: string | null;
}

/** A record made of `id` and the fields asked for with `fields`. */
export type ResourceFieldsView = Partial<ResourceView> & Pick<ResourceView, 'id'>;

/** The OpenAPI form of a `fields` projection: `id` always, every other field when asked for. */
export class ResourceProjectionView extends IntersectionType(
  PickType(ResourceView, ['id'] as const),
  PartialType(OmitType(ResourceView, ['id'] as const)),
) {}

/** The single form of a resource: every column but the version, in the order of the schema. */
export function toResourceView(record: ResourceRecord): ResourceView {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    type: record.type,
    status: record.status,
    metadata: record.metadata,
    tags: record.tags,
    owner_id: record.owner_id,
    organization_id: record.organization_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
    deleted_at: record.deleted_at,
  };
}

export function toResourceListItemView(row: ResourceListRow): ResourceListItemView {
  return {
    id: row.id,
    name: row.name as string,
    type: row.type as ResourceType,
    status: row.status as ResourceStatus,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}

/** Sparse fieldset: `id` and the requested fields, in the order of the single form. */
export function toResourceFieldsView(row: ResourceListRow, fields: ReadonlySet<ResourceField>): ResourceFieldsView {
  const view: Record<string, unknown> = { id: row.id };
  for (const field of RESOURCE_FIELDS) {
    if (field !== 'id' && fields.has(field)) view[field] = row[field] ?? null;
  }
  return view as ResourceFieldsView;
}
