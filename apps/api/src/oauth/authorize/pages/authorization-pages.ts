import type { Scope } from '@app/common';
import { describeScope } from '../../../auth/scope-descriptions';
import { escapeHtml, hiddenInputs, RenderedPage, renderPage } from '../../../platform/pages/page-layout';

export const LOGIN_FORM_PATH = '/oauth/authorize/login';
export const CONSENT_FORM_PATH = '/oauth/authorize';

export interface LoginPageInput {
  clientName: string;
  params: Record<string, string>;
  csrfToken: string;
  email?: string;
  problem?: string;
}

export function loginPage(input: LoginPageInput, status = 200): RenderedPage {
  const alert = input.problem ? `<p class="alert" role="alert">${escapeHtml(input.problem)}</p>` : '';
  return renderPage(
    status,
    'Log in',
    `<h1>Log in to continue</h1>
<p><strong>${escapeHtml(input.clientName)}</strong> wants to use your account.</p>
${alert}
<form method="post" action="${LOGIN_FORM_PATH}">
${hiddenInputs({ ...input.params, csrf_token: input.csrfToken })}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(input.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Log in</button></div>
</form>`,
  );
}

export interface ConsentPageInput {
  clientName: string;
  redirectOrigin: string;
  scopes: readonly Scope[];
  params: Record<string, string>;
  csrfToken: string;
}

export function consentPage(input: ConsentPageInput): RenderedPage {
  const scopes = input.scopes.map((scope) => `<li>${escapeHtml(describeScope(scope))} <span class="muted">(${scope})</span></li>`).join('\n');
  return renderPage(
    200,
    `Allow ${input.clientName}?`,
    `<h1>Allow <strong>${escapeHtml(input.clientName)}</strong> to use your account?</h1>
<p>It will be able to:</p>
<ul>
${scopes}
</ul>
<form method="post" action="${CONSENT_FORM_PATH}">
${hiddenInputs({ ...input.params, csrf_token: input.csrfToken })}
<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
<p class="muted">You will be sent back to ${escapeHtml(input.redirectOrigin)}.</p>`,
    [input.redirectOrigin],
  );
}

export function errorPage(status: number, message: string): RenderedPage {
  return renderPage(
    status,
    'Authorization failed',
    `<h1>This authorization request cannot go on</h1>
<p class="alert" role="alert">${escapeHtml(message)}</p>
<p class="muted">Go back to the application and try again, or tell its makers.</p>`,
  );
}
