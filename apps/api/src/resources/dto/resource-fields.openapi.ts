import type { ApiPropertyOptions } from '@nestjs/swagger';
import { METADATA_VALUE_SCHEMA } from '../resource.view';
import { DESCRIPTION_MAX, METADATA_KEY_MAX, METADATA_KEYS_MAX, NAME_MAX, TAG_MAX, TAGS_MAX } from './resource-field.validators';

/** The writable fields of a resource as the OpenAPI document states their rules (docs/api.md#resource-fields). */

/** At least one character that trimming keeps, and no NUL (the one text rule). */
const NON_BLANK_TEXT = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';

export const NAME_FIELD: ApiPropertyOptions = {
  type: String,
  minLength: 1,
  maxLength: NAME_MAX,
  pattern: NON_BLANK_TEXT,
  description: `Stored trimmed; 1-${NAME_MAX} characters that are not all white space.`,
  example: 'Primary database',
};

export const DESCRIPTION_FIELD: ApiPropertyOptions = {
  type: String,
  nullable: true,
  maxLength: DESCRIPTION_MAX,
  description: 'null clears it.',
  example: 'Orders and invoices',
};

export const TAGS_FIELD: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: TAG_MAX },
  maxItems: TAGS_MAX,
  uniqueItems: true,
  description: `Up to ${TAGS_MAX} distinct strings of 1-${TAG_MAX} characters.`,
  example: ['production'],
};

/**
 * Keys of 1-40 characters (no NUL), up to 50 of them; values a string of up to 500, a number, a
 * boolean or null. `propertyNames` is JSON Schema's (OpenAPI 3.1), which Nest's 3.0 types lack.
 */
export const METADATA_FIELD = {
  type: 'object',
  additionalProperties: METADATA_VALUE_SCHEMA,
  propertyNames: { minLength: 1, maxLength: METADATA_KEY_MAX, pattern: '^[^\\u0000]*$' },
  maxProperties: METADATA_KEYS_MAX,
  description: `Up to ${METADATA_KEYS_MAX} keys of 1-${METADATA_KEY_MAX} characters; values a string (up to 500 characters), a number, a boolean or null.`,
  example: { region: 'eu-west-1', replicas: 3 },
} as ApiPropertyOptions;
