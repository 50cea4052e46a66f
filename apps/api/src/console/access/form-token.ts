import { randomBytes } from 'node:crypto';
import { InsufficientPermissionsError } from '@app/common';
import { secretsEqual } from '../../auth/opaque-secret';

const EXPIRED_FORM_MESSAGE =
  'This form has expired or did not come from the console (its security token is missing or wrong). Go back, reload the page and send it again.';

/** The refusal of a form without the token the console gave it: a 403 page. */
export function expiredForm(): InsufficientPermissionsError {
  return new InsufficientPermissionsError(EXPIRED_FORM_MESSAGE);
}

/** Whether a form body carries `expected` as its `csrf_token`, compared in constant time. */
export function carriesFormToken(body: unknown, expected: string): boolean {
  const sent = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).csrf_token : undefined;
  return typeof sent === 'string' && sent.length > 0 && secretsEqual(sent, expected);
}

/** The field of a create form's one-time token, beside `csrf_token`. */
export const SUBMISSION_FIELD = 'submission';

const SUBMISSION_TOKEN = /^[A-Za-z0-9_-]{22,64}$/;

/** A fresh one-time token for a form that creates something, one for each time the form is shown. */
export function newSubmissionToken(): string {
  return randomBytes(16).toString('base64url');
}

/** The one-time token a create form carries; a form without one is refused as expired, since its page did not come from the console. */
export function submissionTokenOf(body: unknown): string {
  const sent = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[SUBMISSION_FIELD] : undefined;
  if (typeof sent !== 'string' || !SUBMISSION_TOKEN.test(sent)) throw expiredForm();
  return sent;
}
