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
