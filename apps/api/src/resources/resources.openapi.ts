import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiParam, ApiQuery, ApiQueryOptions, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { RESOURCE_FIELDS, RESOURCE_SORT_FIELDS } from '@app/database';
import { ResourceView } from './resource.view';

/** OpenAPI pieces of the resource endpoints: conditional and idempotency headers, list queries. */

const ETAG_HEADER = {
  ETag: {
    description: 'Strong entity tag of the resource version, e.g. `"3"`; send it back in If-Match or If-None-Match.',
    schema: { type: 'string', example: '"3"' },
  },
};

/** A `{ data: resource }` body with its ETag header; reads that take `fields` answer a projection. */
export function ApiResourceResponse(status: number, description: string, model: Type<unknown> = ResourceView): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status,
      description,
      headers: ETAG_HEADER,
      schema: { type: 'object', required: ['data'], properties: { data: { $ref: getSchemaPath(model) } } },
    }),
  );
}

/** A `{ data: [resources], meta: { count } }` body of the bulk endpoints. */
export function ApiBulkResponse(status: number, description: string): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(ResourceView),
    ApiResponse({
      status,
      description,
      schema: {
        type: 'object',
        required: ['data', 'meta'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(ResourceView) } },
          meta: { type: 'object', properties: { count: { type: 'integer', example: 2 } } },
        },
      },
    }),
  );
}

export function ApiIdempotencyKey(): MethodDecorator {
  return ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      '1-255 characters, scoped to your account and kept 24 hours. Repeating the same request with the same key ' +
      'replays the first answer with `Idempotent-Replayed: true`; another request with that key is 422 ' +
      '`idempotency_key_reused`; while the first still runs, 409 `idempotency_key_in_progress`.',
    schema: { type: 'string', minLength: 1, maxLength: 255, example: 'b6f1c1f0-6a1d-4c55-9d4e-3f7c2e8b9a10' },
  });
}

export function ApiIfMatch(): MethodDecorator {
  return ApiHeader({
    name: 'If-Match',
    required: false,
    description: 'Apply only if the resource still has this ETag (or `*`); otherwise 412 `precondition_failed`.',
    schema: { type: 'string', example: '"3"' },
  });
}

export function ApiIfNoneMatch(): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: 'Answer 304 Not Modified, without a body, when the resource still has this ETag.',
      schema: { type: 'string', example: '"3"' },
    }),
    ApiResponse({ status: 304, description: 'Not modified: If-None-Match lists the current ETag. No body.', headers: ETAG_HEADER }),
  );
}

/** The `{id}` of a resource path; an id of the wrong shape is simply not found. */
export function ApiResourceId(): MethodDecorator {
  return ApiParam({ name: 'id', description: 'A resource id (`res_`).', example: 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X' });
}

export const FIELDS_QUERY: ApiQueryOptions = {
  name: 'fields',
  required: false,
  description: `Comma-separated fields to return; \`id\` is always included. One of: ${RESOURCE_FIELDS.join(', ')}.`,
  schema: { type: 'string', example: 'name,status' },
};

export function ApiListQueries(): MethodDecorator {
  const queries: ApiQueryOptions[] = [
    { name: 'page', required: false, description: 'Offset style: page number, from 1.', schema: { type: 'integer', minimum: 1, default: 1 } },
    { name: 'per_page', required: false, description: 'Offset style: 1-100.', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
    { name: 'cursor', required: false, description: 'Cursor style: `meta.cursor.next` or `prev` of an earlier page.', schema: { type: 'string' } },
    { name: 'limit', required: false, description: 'Cursor style: 1-100.', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
    {
      name: 'sort',
      required: false,
      description: `Comma-separated among ${RESOURCE_SORT_FIELDS.join(', ')}; prefix \`-\` for descending. \`id\` breaks ties.`,
      schema: { type: 'string', default: '-created_at', example: 'name,-created_at' },
    },
    { name: 'filter[status]', required: false, description: 'One status or a comma-separated list.', schema: { type: 'string', example: 'active' } },
    {
      name: 'filter[type]',
      required: false,
      description: 'One type or a comma-separated list (`enterprise`, the legacy name, matches nothing).',
      schema: { type: 'string', example: 'standard,premium' },
    },
    { name: 'filter[organization_id]', required: false, description: 'Only resources of this organization.', schema: { type: 'string' } },
    FIELDS_QUERY,
  ];
  return applyDecorators(...queries.map((query) => ApiQuery(query)));
}
