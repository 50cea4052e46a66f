import type { ValidationError as ClassValidatorError } from 'class-validator';
import type { FieldProblem } from '@app/common';

/** Server-set fields: sending one is "read-only", not "unknown". */
export const READ_ONLY_FIELDS = new Set([
  'id',
  'created_at',
  'updated_at',
  'deleted_at',
  'owner_id',
  'version',
  'key',
  'last_used_at',
  'prefix',
]);

function childPath(parent: string, property: string, parentValue: unknown): string {
  if (Array.isArray(parentValue)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

/** The problem of a body field no DTO declares: server-set ones are read-only, others unknown. */
export function undeclaredBodyField(name: string): string {
  return READ_ONLY_FIELDS.has(name) ? 'is read-only' : 'is not a known field';
}

/** Flattens class-validator's tree into `details`, with paths like `resources[3].name`. */
export function toFieldProblems(
  errors: ClassValidatorError[],
  undeclaredField: (name: string) => string = undeclaredBodyField,
  parent = '',
  parentValue?: unknown,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const error of errors) {
    const field = childPath(parent, error.property, parentValue);
    const constraints = Object.entries(error.constraints ?? {});
    // Optional fields skip validation when absent, so any failure of an absent value means it is required.
    if (error.value === undefined && constraints.length > 0 && !('whitelistValidation' in (error.constraints ?? {}))) {
      problems.push({ field, message: 'is required' });
      continue;
    }
    for (const [constraint, message] of constraints) {
      if (constraint === 'whitelistValidation') {
        problems.push({ field, message: undeclaredField(error.property) });
      } else {
        const prefix = `${error.property} `;
        problems.push({ field, message: message.startsWith(prefix) ? message.slice(prefix.length) : message });
      }
    }
    if (error.children && error.children.length > 0) {
      problems.push(...toFieldProblems(error.children, undeclaredField, field, error.value));
    }
  }
  return problems;
}
