import type { Response } from 'supertest';

interface FieldProblem {
  field: string;
  message: string;
}

/**
 * The answer is `status` with the error envelope `{ error: { code, message, details? } }` and
 * an X-Request-ID; when `message` is given, the message matches it.
 */
export function expectError(res: Response, status: number, code: string, message?: string | RegExp): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
  if (message !== undefined) expect(res.body.error.message).toMatch(message);
}

function problemsOf(res: Response): FieldProblem[] {
  return (res.body.error.details ?? []) as FieldProblem[];
}

/** The fields named in `details`, each once, in the order given. */
export function errorFields(res: Response): string[] {
  return [...new Set(problemsOf(res).map((problem) => problem.field))];
}

/** Every message `details` gives for one field, joined with "; ". */
export function errorMessagesFor(res: Response, field: string): string {
  return problemsOf(res)
    .filter((problem) => problem.field === field)
    .map((problem) => problem.message)
    .join('; ');
}
