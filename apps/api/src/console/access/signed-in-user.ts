import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { httpRequestOf } from '../../platform/request/http-arguments';
import type { SessionUser } from '../../platform/request/request-state';

/** Who is signed in to the console: the same AuthContext the API builds for their session cookie, their e-mail and the session's CSRF token. */
export type SignedInUser = SessionUser;

export type ConsoleRequest = Request & { signedIn?: SignedInUser; id?: string };

/** The signed-in user, as ConsoleSessionGuard found them. */
export const SignedIn = createParamDecorator((_data: unknown, context: ExecutionContext): SignedInUser => {
  const user = httpRequestOf<ConsoleRequest>(context).signedIn;
  // The guard runs on every page that takes this parameter; its absence is a wiring defect.
  if (!user) throw new Error('A console page asked for the signed-in user before ConsoleSessionGuard ran.');
  return user;
});
