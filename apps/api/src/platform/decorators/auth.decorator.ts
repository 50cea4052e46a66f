import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { httpRequestOf } from '../request/http-arguments';

export type AuthenticatedRequest = Request & { auth?: AuthContext; id?: string };

/** The caller's AuthContext, set by the authentication guard. */
export const Auth = createParamDecorator((_data: unknown, context: ExecutionContext): AuthContext => {
  const auth = httpRequestOf<AuthenticatedRequest>(context).auth;
  if (!auth) throw new AuthenticationRequiredError();
  return auth;
});
