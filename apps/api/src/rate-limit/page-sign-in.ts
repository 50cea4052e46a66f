import { ExecutionContext, SetMetadata, Type } from '@nestjs/common';
import type { AuthContext } from '@app/common';

/**
 * Tells who is signed in on pages that check their own sign-in, which the API's credential guards
 * leave public (the console): their requests then count against that account at its plan's limit,
 * as a credential's requests do. Null counts the request by its client IP.
 */
export interface PageSignIn {
  accountOf(context: ExecutionContext): Promise<AuthContext | null>;
}

export const PAGE_SIGN_IN = 'rms:rateLimit:pageSignIn';

/** Names the provider that tells the rate limit who is signed in on a controller's pages. */
export const CountedAsSignedIn = (signIn: Type<PageSignIn>): ClassDecorator & MethodDecorator => SetMetadata(PAGE_SIGN_IN, signIn);
