import type { IncomingMessage } from 'node:http';
import type { AuthContext } from '@app/common';

/** The login session a request's session cookie names, as the session reader finds it in Redis. */
export interface RequestSession {
  id: string;
  userId: string;
  csrfToken: string;
  createdAt: string;
}

/** Who a login session signs in on a page: the caller the API would build for the cookie, and the account's e-mail. */
export interface SessionUser {
  auth: AuthContext;
  email: string;
  /** The session's CSRF token, which every form sent from a signed-in page carries. */
  csrfToken: string;
}

/**
 * What the request pipeline learns about one request and hands from one step to the next: one
 * object per request, attached once by the request id middleware, with every field declared here
 * so that V8 gives every request's state the same shape. It replaces per-service WeakMaps and
 * WeakSets keyed by the request, which cost a hash lookup (and a weak-table entry for the GC to
 * trace) for every question asked.
 */
export class RequestState {
  /** Whether the caller's credential is revoked: unknown yet, the check under way, or its answer. */
  revoked: boolean | Promise<boolean> | undefined = undefined;
  /** Whether the rate limit counted the request: the guard and the error filter may both see it. */
  counted = false;
  /** The account signed in on a page that checks its own sign-in, asked once for the limit and the tracker. */
  pageAccount: Promise<AuthContext | undefined> | undefined = undefined;
  /** The session the request's cookie names, read once whoever asks (SessionReader): null for none. */
  session: Promise<RequestSession | null> | undefined = undefined;
  /** Who that session signs in on a page, found once: the rate limit asks before the page's own guard does. */
  sessionUser: Promise<SessionUser | null> | undefined = undefined;
  /** The token of the request's `Authorization: Bearer`, read once whoever asks (`bearerToken`): null for none. */
  bearerToken: string | null | undefined = undefined;
  /** Whether the Idempotency-Key guard captures the answer where Express sends it (send-capture.ts). */
  capturingSends = false;

  constructor(readonly requestId: string) {}
}

export type StatefulRequest = IncomingMessage & { state?: RequestState; id?: string };

/**
 * The request's state: the one the request id middleware attached, or, for a request that did not
 * pass it (a unit test's), one attached now.
 */
export function requestStateOf(req: Pick<IncomingMessage, 'headers'>): RequestState {
  const stateful = req as StatefulRequest;
  return (stateful.state ??= new RequestState(stateful.id ?? ''));
}
