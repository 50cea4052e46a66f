import { FieldProblem, InvalidRequestError, ValidationError } from '@app/common';

/** Deeper JSON than any endpoint takes (metadata is flat) is refused before anything walks it. */
export const MAX_INPUT_DEPTH = 32;
/** No endpoint takes more; a larger array or object is refused before its items are validated. */
export const MAX_INPUT_ITEMS = 1000;

const NUL = '\u0000';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored as text (PostgreSQL refuses NUL; UTF-8 has no lone surrogates). */
export function textProblem(text: string): string | undefined {
  if (text.includes(NUL)) return 'must not contain NUL characters (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (it contains a lone surrogate)';
  return undefined;
}

function childPath(parent: string, key: string, isArray: boolean): string {
  if (isArray) return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

/**
 * The one rule for every string the service accepts, at any depth of a body or query: no NUL,
 * no lone surrogate (validation_error naming each field), no nesting deeper than
 * MAX_INPUT_DEPTH and no array or object of more than MAX_INPUT_ITEMS entries (so that a
 * hostile body costs one linear walk, not one validation per item).
 */
export function checkInputText(value: unknown, path = '', depth = 0, problems: FieldProblem[] = []): FieldProblem[] {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) problems.push({ field: path || 'body', message: problem });
    return problems;
  }
  if (value === null || typeof value !== 'object') return problems;
  if (depth >= MAX_INPUT_DEPTH) {
    throw new InvalidRequestError(`The request nests deeper than ${MAX_INPUT_DEPTH} levels.`);
  }
  const isArray = Array.isArray(value);
  const entries = Object.entries(value);
  if (entries.length > MAX_INPUT_ITEMS) {
    throw new ValidationError([
      { field: path || 'body', message: `has ${entries.length} ${isArray ? 'items' : 'fields'}; at most ${MAX_INPUT_ITEMS} are accepted` },
    ]);
  }
  for (const [key, child] of entries) {
    const field = childPath(path, key, isArray);
    const keyProblem = isArray ? undefined : textProblem(key);
    if (keyProblem) problems.push({ field, message: `has a name that ${keyProblem}` });
    checkInputText(child, field, depth + 1, problems);
  }
  return problems;
}

/** Throws the validation_error of a request's query and body, when any string breaks the rule. */
export function assertInputText(query: unknown, body: unknown): void {
  const problems = checkInputText(query);
  checkInputText(body, '', 0, problems);
  if (problems.length > 0) throw new ValidationError(problems);
}
