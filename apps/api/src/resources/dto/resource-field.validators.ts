import { ValidateBy, ValidationOptions } from 'class-validator';
import { isId } from '@app/common';
import { LEGACY_RESOURCE_TYPE, RESOURCE_STATUSES, RESOURCE_TYPES } from '../resource.repository';

/**
 * One validator per resource field, each answering with one message that states the whole rule
 * (docs/api.md#resource-fields). `undefined` always passes: presence is the job of `@IsDefined`. `null` passes
 * only where the field is nullable.
 */

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 500;
export const TAGS_MAX = 20;
export const TAG_MAX = 50;
export const METADATA_KEYS_MAX = 50;
export const METADATA_KEY_MAX = 40;
export const METADATA_STRING_MAX = 500;

type Problem = string | null;

/** PostgreSQL stores neither NUL characters nor unpaired UTF-16 surrogates in text or jsonb. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function isText(value: unknown): value is string {
  return typeof value === 'string' && !value.includes('\u0000') && !UNPAIRED_SURROGATE.test(value);
}

/**
 * Characters as JSON Schema's `maxLength` counts them (code points), not UTF-16 units: a text
 * of 100 emoji is 100 characters. Valid for text only, where every high surrogate starts a pair.
 */
function characterCount(text: string): number {
  let count = text.length;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) count--;
  }
  return count;
}

function quoted(value: string): string {
  return JSON.stringify(value.length > 50 ? `${value.slice(0, 50)}...` : value);
}

export function nameProblem(value: unknown): Problem {
  if (value === undefined) return null;
  if (!isText(value) || value.trim().length === 0 || characterCount(value.trim()) > NAME_MAX) {
    return `must be a string of 1-${NAME_MAX} characters (after trimming)`;
  }
  return null;
}

export function descriptionProblem(value: unknown): Problem {
  if (value === undefined || value === null) return null;
  if (!isText(value) || characterCount(value) > DESCRIPTION_MAX) {
    return `must be a string of at most ${DESCRIPTION_MAX} characters, or null`;
  }
  return null;
}

export function typeProblem(value: unknown): Problem {
  if (value === undefined || (RESOURCE_TYPES as readonly unknown[]).includes(value)) return null;
  if (value === LEGACY_RESOURCE_TYPE) {
    return `"${LEGACY_RESOURCE_TYPE}" is the legacy name of a type and is no longer accepted; use one of: ${RESOURCE_TYPES.join(', ')}`;
  }
  return `must be one of: ${RESOURCE_TYPES.join(', ')}`;
}

export function statusProblem(value: unknown): Problem {
  if (value === undefined || (RESOURCE_STATUSES as readonly unknown[]).includes(value)) return null;
  return `must be one of: ${RESOURCE_STATUSES.join(', ')}`;
}

export function tagsProblem(value: unknown): Problem {
  if (value === undefined) return null;
  if (!Array.isArray(value)) return 'must be an array of strings';
  if (value.length > TAGS_MAX) return `must have at most ${TAGS_MAX} tags`;
  const seen = new Set<string>();
  for (const [index, tag] of value.entries()) {
    if (!isText(tag) || tag.length === 0 || characterCount(tag) > TAG_MAX) {
      return `item ${index} must be a string of 1-${TAG_MAX} characters`;
    }
    if (seen.has(tag)) return `must be distinct; ${quoted(tag)} appears more than once`;
    seen.add(tag);
  }
  return null;
}

function isMetadataValue(value: unknown): boolean {
  if (typeof value === 'string') return isText(value) && characterCount(value) <= METADATA_STRING_MAX;
  if (typeof value === 'number') return Number.isFinite(value);
  return value === null || typeof value === 'boolean';
}

/** Metadata on create and replace, or a merge patch of it (where a null value removes the key). */
export function metadataProblem(value: unknown, options: { nullable: boolean }): Problem {
  if (value === undefined || (value === null && options.nullable)) return null;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return 'must be an object of keys to string, number, boolean or null values';
  }
  const entries = Object.entries(value);
  if (entries.length > METADATA_KEYS_MAX) return `must have at most ${METADATA_KEYS_MAX} keys`;
  for (const [key, entry] of entries) {
    if (!isText(key) || key.length === 0 || characterCount(key) > METADATA_KEY_MAX) {
      return `key ${quoted(key)} must be 1-${METADATA_KEY_MAX} characters`;
    }
    if (!isMetadataValue(entry)) {
      return `value of ${quoted(key)} must be a string of at most ${METADATA_STRING_MAX} characters, a number, a boolean or null`;
    }
  }
  return null;
}

export function organizationIdProblem(value: unknown): Problem {
  if (value === undefined || value === null || isId('org', value)) return null;
  return 'must be an organization id (org_...) or null';
}

/** The list of a bulk request: an array of 1-`max` items. */
export function bulkListProblem(value: unknown, max: number, what: string): Problem {
  if (!Array.isArray(value) || value.length === 0) return `must be an array of 1-${max} ${what}`;
  if (value.length > max) return `must have at most ${max} ${what}; send more in further requests`;
  // class-validator reads a list inside the list as more items, where the service reads one.
  const listAt = value.findIndex((item) => Array.isArray(item));
  if (listAt !== -1) return `must list ${what} as objects; item ${listAt} is an array`;
  return null;
}

export function objectProblem(value: unknown): Problem {
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object';
  return null;
}

function fieldRule(name: string, problem: (value: unknown) => Problem, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name,
      validator: {
        validate: (value: unknown) => problem(value) === null,
        defaultMessage: (args) => problem(args?.value) ?? 'is invalid',
      },
    },
    options,
  );
}

export const IsResourceName = (): PropertyDecorator => fieldRule('isResourceName', nameProblem);
export const IsResourceDescription = (): PropertyDecorator => fieldRule('isResourceDescription', descriptionProblem);
export const IsResourceType = (): PropertyDecorator => fieldRule('isResourceType', typeProblem);
export const IsResourceStatus = (): PropertyDecorator => fieldRule('isResourceStatus', statusProblem);
export const IsResourceTags = (): PropertyDecorator => fieldRule('isResourceTags', tagsProblem);
export const IsOrganizationReference = (): PropertyDecorator => fieldRule('isOrganizationReference', organizationIdProblem);
export const IsBulkList = (max: number, what: string): PropertyDecorator =>
  fieldRule('isBulkList', (value) => bulkListProblem(value, max, what));
export const IsPlainObject = (): PropertyDecorator => fieldRule('isPlainObject', objectProblem);
export const IsResourceMetadata = (options: { nullable: boolean }): PropertyDecorator =>
  fieldRule('isResourceMetadata', (value) => metadataProblem(value, options));

/** Names are stored trimmed. */
export const trimString = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
