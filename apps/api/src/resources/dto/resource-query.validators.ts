import { ValidateBy } from 'class-validator';
import { isId, queryInteger } from '@app/common';
import { RESOURCE_SORT_FIELDS } from '../resource.repository';
import type { ValidationErrorWording } from '../../platform/validation/app-validation.pipe';

/**
 * One validator per parameter of the resource queries, each answering with one message that
 * states the whole rule (docs/api.md#pagination). `undefined` (not given) always passes. A parameter given
 * twice arrives as an array.
 */

type Problem = string | null;

const GIVEN_ONCE = 'must be given once';

/** The items of a comma-separated parameter, trimmed, in the order given. */
export function listItems(value: string): string[] {
  return value.split(',').map((item) => item.trim());
}

/** Integer parameters arrive as text: a whole number becomes a number, anything else NaN (or stays an array). */
export const toQueryInteger = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? queryInteger(value) : value);

export function integerProblem(value: unknown, min: number, max: number): Problem {
  if (value === undefined) return null;
  if (typeof value !== 'number') return GIVEN_ONCE;
  return value >= min && value <= max ? null : `must be an integer from ${min} to ${max}`;
}

export function cursorProblem(value: unknown): Problem {
  if (value === undefined) return null;
  if (typeof value !== 'string') return GIVEN_ONCE;
  return value === '' ? 'must not be empty' : null;
}

/** `sort`: sort fields, each at most once, each optionally prefixed with `-` for descending. */
export function sortProblem(value: unknown): Problem {
  if (value === undefined) return null;
  if (typeof value !== 'string') return GIVEN_ONCE;
  const seen = new Set<string>();
  for (const item of listItems(value)) {
    const field = item.startsWith('-') ? item.slice(1) : item;
    if (!(RESOURCE_SORT_FIELDS as readonly string[]).includes(field)) {
      return `unknown sort field ${JSON.stringify(item)}; use ${RESOURCE_SORT_FIELDS.join(', ')}, each optionally prefixed with - for descending`;
    }
    if (seen.has(field)) return `sorts by ${field} more than once`;
    seen.add(field);
  }
  return null;
}

/** A comma-separated list whose every item is one of `allowed` (`what` names an item). */
export function listProblem(value: unknown, allowed: readonly string[], what: string): Problem {
  if (value === undefined) return null;
  if (typeof value !== 'string') return GIVEN_ONCE;
  const items = listItems(value);
  if (items.some((item) => item.length === 0)) return `must be a comma-separated list of ${what}: ${allowed.join(', ')}`;
  const unknown = items.filter((item) => !allowed.includes(item));
  if (unknown.length > 0) return `unknown ${what} ${unknown.map((item) => JSON.stringify(item)).join(', ')}; use ${allowed.join(', ')}`;
  return null;
}

export function organizationIdProblem(value: unknown): Problem {
  if (value === undefined) return null;
  if (typeof value !== 'string') return GIVEN_ONCE;
  return isId('org', value) ? null : 'must be an organization id (org_...)';
}

export function flagProblem(value: unknown): Problem {
  if (value === undefined) return null;
  if (typeof value !== 'string') return GIVEN_ONCE;
  return value === 'true' || value === 'false' ? null : 'must be true or false';
}

function queryRule(name: string, problem: (value: unknown) => Problem): PropertyDecorator {
  return ValidateBy({
    name,
    validator: {
      validate: (value: unknown) => problem(value) === null,
      defaultMessage: (args) => problem(args?.value) ?? 'is invalid',
    },
  });
}

export const IsQueryInteger = (min: number, max: number): PropertyDecorator =>
  queryRule('isQueryInteger', (value) => integerProblem(value, min, max));
export const IsCursor = (): PropertyDecorator => queryRule('isCursor', cursorProblem);
export const IsResourceSort = (): PropertyDecorator => queryRule('isResourceSort', sortProblem);
export const IsQueryList = (allowed: readonly string[], what: string): PropertyDecorator =>
  queryRule('isQueryList', (value) => listProblem(value, allowed, what));
export const IsOrganizationFilter = (): PropertyDecorator => queryRule('isOrganizationFilter', organizationIdProblem);
export const IsQueryFlag = (): PropertyDecorator => queryRule('isQueryFlag', flagProblem);

/** The filters of `GET /resources`, named as the query names them. */
export const RESOURCE_FILTERS = ['filter[status]', 'filter[type]', 'filter[organization_id]'] as const;

/** The resource queries speak of parameters and filters, not of a body's fields. */
export const RESOURCE_QUERY_WORDING: ValidationErrorWording = {
  message: 'The query has invalid parameters.',
  undeclaredField: (name) =>
    name.startsWith('filter[') ? `is not a known filter; use ${RESOURCE_FILTERS.join(', ')}` : 'is not a known query parameter',
};
