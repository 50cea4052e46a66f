import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiParam, ApiQuery, ApiQueryOptions, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { idPattern, PAGE_MAX, PER_PAGE_DEFAULT, PER_PAGE_MAX } from '@app/common';
import { LEGACY_RESOURCE_TYPE, RESOURCE_FIELDS, RESOURCE_SORT_FIELDS, RESOURCE_STATUSES, RESOURCE_TYPES } from './resource.repository';
import { ApiDataResponse } from '../platform/openapi/api-responses';
import { responseHeaders } from '../platform/openapi/http-headers';
import { BulkResultMetaView } from '../platform/pagination/page-meta.view';
import { DEFAULT_SORT } from './resource-list-query';
import { ResourceView } from './resource.view';

/** OpenAPI pieces of the resource endpoints: conditional headers, list queries. */

/** A comma-separated list of `values`, as a pattern: the query validators accept nothing else. */
function listPattern(values: readonly string[], itemPrefix = ''): string {
  const item = `${itemPrefix}(?:${values.join('|')})`;
  return `^${item}(?:,${item})*$`;
}

/** `sort`: fields, each at most once (the validator refuses a field sorted twice), `-` for descending. */
const SORT_PATTERN = `^(?!.*\\b(${RESOURCE_SORT_FIELDS.join('|')})\\b.*\\b\\1\\b)${listPattern(RESOURCE_SORT_FIELDS, '-?').slice(1)}`;

/** A `{ data: resource }` body with its ETag header; reads that take `fields` answer a projection. */
export function ApiResourceResponse(status: number, description: string, model: Type<unknown> = ResourceView): MethodDecorator {
  return ApiDataResponse(model, status, description, ['ETag']);
}

/** A `{ data: [resources], meta: { count } }` body of the bulk endpoints. */
export function ApiBulkResponse(status: number, description: string): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(ResourceView, BulkResultMetaView),
    ApiResponse({
      status,
      description,
      schema: {
        type: 'object',
        required: ['data', 'meta'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(ResourceView) } },
          meta: { $ref: getSchemaPath(BulkResultMetaView) },
        },
      },
    }),
  );
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
      description: 'Answer 304 Not Modified, without a body, when the resource still has this ETag (weak comparison; a list, or `*`).',
      schema: { type: 'string', example: '"3"' },
    }),
    ApiResponse({ status: 304, description: 'Not modified: If-None-Match lists the current ETag. No body.', headers: responseHeaders('ETag') }),
  );
}

/** The `{id}` of a resource path; an id of the wrong shape is simply not found. */
export function ApiResourceId(): MethodDecorator {
  return ApiParam({ name: 'id', description: 'A resource id (`res_`).', schema: { type: 'string', example: 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X' } });
}

export const FIELDS_QUERY: ApiQueryOptions = {
  name: 'fields',
  required: false,
  description: `Comma-separated fields to return; \`id\` is always included. Any of: ${RESOURCE_FIELDS.join(', ')}.`,
  schema: { type: 'string', pattern: listPattern(RESOURCE_FIELDS), example: 'name,status' },
};

export function ApiListQueries(): MethodDecorator {
  const queries: ApiQueryOptions[] = [
    {
      name: 'page',
      required: false,
      description: 'Offset style: page number, from 1. Not with `cursor` or `limit`.',
      schema: { type: 'integer', minimum: 1, maximum: PAGE_MAX, default: 1 },
    },
    {
      name: 'per_page',
      required: false,
      description: `Offset style: 1-${PER_PAGE_MAX}. Not with \`cursor\` or \`limit\`.`,
      schema: { type: 'integer', minimum: 1, maximum: PER_PAGE_MAX, default: PER_PAGE_DEFAULT },
    },
    {
      name: 'cursor',
      required: false,
      description:
        'Cursor style: `meta.cursor.next` or `prev` of an earlier page, with the same filters and sort. Cursors are ' +
        'signed: any other value is 400 `invalid_request`. Not with `page` or `per_page`.',
      schema: { type: 'string', minLength: 1 },
    },
    {
      name: 'limit',
      required: false,
      description: `Cursor style: 1-${PER_PAGE_MAX}. Not with \`page\` or \`per_page\`.`,
      schema: { type: 'integer', minimum: 1, maximum: PER_PAGE_MAX, default: PER_PAGE_DEFAULT },
    },
    {
      name: 'sort',
      required: false,
      description: `Comma-separated among ${RESOURCE_SORT_FIELDS.join(', ')}, each at most once; prefix \`-\` for descending. \`id\` breaks ties.`,
      schema: { type: 'string', pattern: SORT_PATTERN, default: DEFAULT_SORT, example: 'name,-created_at' },
    },
    {
      name: 'filter[status]',
      required: false,
      description: 'One status or a comma-separated list.',
      schema: { type: 'string', pattern: listPattern(RESOURCE_STATUSES), example: 'active' },
    },
    {
      name: 'filter[type]',
      required: false,
      description: `One type or a comma-separated list (\`${LEGACY_RESOURCE_TYPE}\`, the legacy name, matches nothing).`,
      schema: { type: 'string', pattern: listPattern([...RESOURCE_TYPES, LEGACY_RESOURCE_TYPE]), example: 'standard,premium' },
    },
    {
      name: 'filter[organization_id]',
      required: false,
      description: 'Only resources of this organization (`org_`).',
      schema: { type: 'string', pattern: idPattern('org'), example: 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X' },
    },
    FIELDS_QUERY,
  ];
  return applyDecorators(...queries.map((query) => ApiQuery(query)));
}
