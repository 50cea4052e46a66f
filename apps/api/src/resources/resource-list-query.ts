import { FieldProblem, InvalidRequestError, isId, PAGE_MAX, PER_PAGE_DEFAULT, PER_PAGE_MAX, queryInteger, ValidationError } from '@app/common';
import {
  LEGACY_RESOURCE_TYPE,
  RESOURCE_FIELDS,
  RESOURCE_SORT_FIELDS,
  RESOURCE_STATUSES,
  RESOURCE_TYPES,
  ResourceField,
  ResourceListFilter,
  ResourceListSpec,
  ResourceSortField,
  ResourceSortKey,
} from '@app/database';

export const DEFAULT_SORT = '-created_at';

/** The list form's fields, when `fields` is not given. */
export const LIST_FORM_FIELDS: readonly ResourceField[] = ['name', 'type', 'status', 'created_at', 'updated_at'];

export type ResourcePagination =
  | { style: 'offset'; page: number; perPage: number }
  | { style: 'cursor'; cursor: string | null; limit: number };

/** `GET /resources` query, checked and normalised (decisions 5). */
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

const FILTERS = ['filter[status]', 'filter[type]', 'filter[organization_id]'] as const;
const LIST_PARAMETERS = new Set<string>(['page', 'per_page', 'cursor', 'limit', 'sort', 'fields', ...FILTERS]);
const FILTER_TYPES: readonly string[] = [...RESOURCE_TYPES, LEGACY_RESOURCE_TYPE];

/** Reads query parameters, collecting every problem rather than stopping at the first. */
class QueryReader {
  readonly problems: FieldProblem[] = [];

  constructor(private readonly raw: Record<string, unknown>) {}

  has(name: string): boolean {
    return this.raw[name] !== undefined;
  }

  string(name: string): string | undefined {
    const value = this.raw[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      this.problem(name, 'must be given once');
      return undefined;
    }
    return value;
  }

  integer(name: string, min: number, max: number, fallback: number): number {
    const value = this.string(name);
    if (value === undefined) return fallback;
    const parsed = queryInteger(value);
    if (!(parsed >= min && parsed <= max)) {
      this.problem(name, `must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return parsed;
  }

  /** A comma-separated list whose every item is one of `allowed`. */
  list<T extends string>(name: string, allowed: readonly T[], what: string): T[] | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const items = value.split(',').map((item) => item.trim());
    if (items.some((item) => item.length === 0)) {
      this.problem(name, `must be a comma-separated list of ${what}: ${allowed.join(', ')}`);
      return undefined;
    }
    const unknown = items.filter((item) => !(allowed as readonly string[]).includes(item));
    if (unknown.length > 0) {
      this.problem(name, `unknown ${what} ${unknown.map((item) => JSON.stringify(item)).join(', ')}; use ${allowed.join(', ')}`);
      return undefined;
    }
    return [...new Set(items)] as T[];
  }

  problem(field: string, message: string): void {
    this.problems.push({ field, message });
  }
}

function parseSort(reader: QueryReader): ResourceSortKey[] {
  const value = reader.string('sort') ?? DEFAULT_SORT;
  const keys: ResourceSortKey[] = [];
  for (const item of value.split(',').map((part) => part.trim())) {
    const descending = item.startsWith('-');
    const field = descending ? item.slice(1) : item;
    if (!(RESOURCE_SORT_FIELDS as readonly string[]).includes(field)) {
      reader.problem('sort', `unknown sort field ${JSON.stringify(item)}; use ${RESOURCE_SORT_FIELDS.join(', ')}, each optionally prefixed with - for descending`);
      return [];
    }
    if (keys.some((key) => key.field === field)) {
      reader.problem('sort', `sorts by ${field} more than once`);
      return [];
    }
    keys.push({ field: field as ResourceSortField, descending });
  }
  return keys;
}

function parseFilter(reader: QueryReader): ResourceListFilter {
  const filter: ResourceListFilter = {
    status: reader.list('filter[status]', RESOURCE_STATUSES, 'status'),
    type: reader.list('filter[type]', FILTER_TYPES, 'type'),
  };
  const organizationId = reader.string('filter[organization_id]');
  if (organizationId !== undefined) {
    if (isId('org', organizationId)) filter.organizationId = organizationId;
    else reader.problem('filter[organization_id]', 'must be an organization id (org_...)');
  }
  return filter;
}

/** `fields` of the list and of the single GET; `id` is always shown. */
function parseFields(reader: QueryReader): ReadonlySet<ResourceField> | null {
  const fields = reader.list('fields', RESOURCE_FIELDS, 'field');
  return fields ? new Set(fields) : null;
}

function unknownParameters(reader: QueryReader, raw: Record<string, unknown>, known: ReadonlySet<string>): void {
  for (const name of Object.keys(raw)) {
    if (known.has(name)) continue;
    const message = name.startsWith('filter[')
      ? `is not a known filter; use ${FILTERS.join(', ')}`
      : 'is not a known query parameter';
    reader.problem(name, message);
  }
}

function parsePagination(reader: QueryReader): ResourcePagination {
  const offsetStyle = reader.has('page') || reader.has('per_page');
  const cursorStyle = reader.has('cursor') || reader.has('limit');
  if (offsetStyle && cursorStyle) {
    throw new InvalidRequestError(
      'Use page and per_page (offset pagination) or cursor and limit (cursor pagination), not both.',
    );
  }
  if (!cursorStyle) {
    return {
      style: 'offset',
      page: reader.integer('page', 1, PAGE_MAX, 1),
      perPage: reader.integer('per_page', 1, PER_PAGE_MAX, PER_PAGE_DEFAULT),
    };
  }
  const cursor = reader.string('cursor');
  if (cursor === '') reader.problem('cursor', 'must not be empty');
  return { style: 'cursor', cursor: cursor || null, limit: reader.integer('limit', 1, PER_PAGE_MAX, PER_PAGE_DEFAULT) };
}

export function parseResourceListQuery(raw: Record<string, unknown>): ResourceListQuery {
  const reader = new QueryReader(raw);
  const pagination = parsePagination(reader);
  unknownParameters(reader, raw, LIST_PARAMETERS);
  const sort = parseSort(reader);
  const filter = parseFilter(reader);
  const fields = parseFields(reader);
  if (reader.problems.length > 0) throw new ValidationError(reader.problems, 'The query has invalid parameters.');

  const linkQuery: Record<string, string> = {};
  for (const name of ['sort', 'fields', ...FILTERS]) {
    const value = raw[name];
    if (typeof value === 'string') linkQuery[name] = value;
  }
  const binding = [
    sort.map((key) => `${key.descending ? '-' : ''}${key.field}`).join(','),
    [...(filter.status ?? [])].sort().join(','),
    [...(filter.type ?? [])].sort().join(','),
    filter.organizationId ?? '',
  ].join('|');
  return {
    spec: { filter, sort, fields: fields ? [...fields] : LIST_FORM_FIELDS },
    pagination,
    fields,
    linkQuery,
    binding,
  };
}

/** `GET /resources/{id}` takes `fields` only. */
export function parseResourceFieldsQuery(raw: Record<string, unknown>): ReadonlySet<ResourceField> | null {
  const reader = new QueryReader(raw);
  unknownParameters(reader, raw, new Set(['fields']));
  const fields = parseFields(reader);
  if (reader.problems.length > 0) throw new ValidationError(reader.problems, 'The query has invalid parameters.');
  return fields;
}

/** `DELETE /resources/{id}` takes `hard=true|false` only. */
export function parseDeleteQuery(raw: Record<string, unknown>): { hard: boolean } {
  const reader = new QueryReader(raw);
  unknownParameters(reader, raw, new Set(['hard']));
  const hard = reader.string('hard');
  if (hard !== undefined && hard !== 'true' && hard !== 'false') reader.problem('hard', 'must be true or false');
  if (reader.problems.length > 0) throw new ValidationError(reader.problems, 'The query has invalid parameters.');
  return { hard: hard === 'true' };
}
