import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthContext } from '@app/common';

/** Who is signed in to the console: the same AuthContext the API builds for their session cookie. */
export interface SignedInUser {
  auth: AuthContext;
  email: string;
  /** The session's CSRF token, which every console form carries. */
  csrfToken: string;
}

export type ConsoleRequest = Request & { signedIn?: SignedInUser; id?: string };

/** The signed-in user, as ConsoleSessionGuard found them. */
export const SignedIn = createParamDecorator((_data: unknown, context: ExecutionContext): SignedInUser => {
  const user = context.switchToHttp().getRequest<ConsoleRequest>().signedIn;
  // The guard runs on every page that takes this parameter; its absence is a wiring defect.
  if (!user) throw new Error('A console page asked for the signed-in user before ConsoleSessionGuard ran.');
  return user;
});
