import { PipeTransform } from '@nestjs/common';
import { InvalidRequestError, PER_PAGE_DEFAULT } from '@app/common';
import { ResourceField, ResourceListFilter, ResourceListSpec, ResourceSortField, ResourceSortKey } from './resource.repository';
import type { ResourceListQueryDto } from './dto/resource-list.query';
import { listItems, RESOURCE_FILTERS } from './dto/resource-query.validators';

export const DEFAULT_SORT = '-created_at';

/** The list form's fields, when `fields` is not given. */
export const LIST_FORM_FIELDS: readonly ResourceField[] = ['name', 'type', 'status', 'created_at', 'updated_at'];

export type ResourcePagination =
  | { style: 'offset'; page: number; perPage: number }
  | { style: 'cursor'; cursor: string | null; limit: number };

/** `GET /resources` query, checked and normalised (docs/api.md#pagination). */
export interface ResourceListQuery {
  spec: ResourceListSpec;
  pagination: ResourcePagination;
  /** Requested `fields`, or null for the list form. */
  fields: ReadonlySet<ResourceField> | null;
  /** Filters, sort and fields as the client sent them, kept by offset links. */
  linkQuery: Record<string, string>;
  /** Normalised filters and sort: a cursor is only valid with the same ones. */
  binding: string;
}

/**
 * Refuses offset parameters (`page`, `per_page`) with cursor ones (`cursor`, `limit`) as
 * `invalid_request`, before the parameters themselves are validated: which style the client
 * meant is unknown, so a problem of one of them would mislead.
 */
export class OnePaginationStylePipe implements PipeTransform<Record<string, unknown>, Record<string, unknown>> {
  transform(query: Record<string, unknown>): Record<string, unknown> {
    const offsetStyle = query.page !== undefined || query.per_page !== undefined;
    const cursorStyle = query.cursor !== undefined || query.limit !== undefined;
    if (offsetStyle && cursorStyle) {
      throw new InvalidRequestError('Use page and per_page (offset pagination) or cursor and limit (cursor pagination), not both.');
    }
    return query;
  }
}

/** Validated list items, each once, in the order given. */
function distinctItems<T extends string>(value: string | undefined): T[] | undefined {
  return value === undefined ? undefined : ([...new Set(listItems(value))] as T[]);
}

function sortKeys(sort: string): ResourceSortKey[] {
  return listItems(sort).map((item) => {
    const descending = item.startsWith('-');
    return { field: (descending ? item.slice(1) : item) as ResourceSortField, descending };
  });
}

function pagination(query: ResourceListQueryDto): ResourcePagination {
  if (query.cursor === undefined && query.limit === undefined) {
    return { style: 'offset', page: query.page ?? 1, perPage: query.per_page ?? PER_PAGE_DEFAULT };
  }
  return { style: 'cursor', cursor: query.cursor ?? null, limit: query.limit ?? PER_PAGE_DEFAULT };
}

/** `fields` of the list and of the single GET; `id` is always shown. */
export function requestedFields(fields: string | undefined): ReadonlySet<ResourceField> | null {
  const items = distinctItems<ResourceField>(fields);
  return items ? new Set(items) : null;
}

/** The list query a validated `ResourceListQueryDto` asks for. */
export function toResourceListQuery(query: ResourceListQueryDto): ResourceListQuery {
  const sort = sortKeys(query.sort ?? DEFAULT_SORT);
  const filter: ResourceListFilter = {
    status: distinctItems(query['filter[status]']),
    type: distinctItems(query['filter[type]']),
  };
  const organizationId = query['filter[organization_id]'];
  if (organizationId !== undefined) filter.organizationId = organizationId;
  const fields = requestedFields(query.fields);

  const linkQuery: Record<string, string> = {};
  for (const name of ['sort', 'fields', ...RESOURCE_FILTERS] as const) {
    const value = query[name];
    if (value !== undefined) linkQuery[name] = value;
  }
  const binding = [
    sort.map((key) => `${key.descending ? '-' : ''}${key.field}`).join(','),
    [...(filter.status ?? [])].sort().join(','),
    [...(filter.type ?? [])].sort().join(','),
    filter.organizationId ?? '',
  ].join('|');
  return {
    spec: { filter, sort, fields: fields ? [...fields] : LIST_FORM_FIELDS },
    pagination: pagination(query),
    fields,
    linkQuery,
    binding,
  };
}
