import type { FieldProblem } from '@app/common';
import type { RenderedPage } from '../../platform/pages/page-layout';
import type { SignedInUser } from '../access/signed-in-user';
import { CONSOLE_HOME, consolePaths } from '../console-paths';
import { consolePage } from './console-layout';
import { html } from './html';

const TITLES: Record<number, string> = {
  400: 'This request is not valid',
  403: 'This was refused',
  404: 'Not found',
  409: 'This conflicts with what exists',
  429: 'Too many requests',
};

export interface ErrorPageInput {
  status: number;
  message: string;
  details?: readonly FieldProblem[];
  user?: SignedInUser;
  requestId?: string;
}

/** The console's answer to a refusal or a failure: the service's own message, in a page. */
export function errorPage(input: ErrorPageInput): RenderedPage {
  const title = TITLES[input.status] ?? (input.status >= 500 ? 'Something went wrong' : 'This request cannot go on');
  const details = input.details && input.details.length > 0 ? html`<ul>${input.details.map(({ field, message }) => html`<li>${field} ${message}</li>`)}</ul>` : null;
  const onward = input.user ? html`<a href="${CONSOLE_HOME}">Back to the console</a>` : html`<a href="${consolePaths.signIn}">Sign in to the console</a>`;
  return consolePage(
    { title, user: input.user },
    html`<h1>${title}</h1>
<div class="alert" role="alert"><p>${input.message}</p>${details}</div>
${input.requestId ? html`<p class="muted">Request id: <code>${input.requestId}</code></p>` : null}
<p>${onward}</p>`,
    input.status,
  );
}
