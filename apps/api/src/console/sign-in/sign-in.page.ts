import type { RenderedPage } from '../../platform/pages/page-layout';
import { consolePaths } from '../console-paths';
import { consolePage } from '../rendering/console-layout';
import { textField } from '../rendering/forms';
import { html } from '../rendering/html';

export interface SignInPageInput {
  csrfToken: string;
  returnTo: string;
  email?: string;
  problem?: string;
  notice?: string;
}

export function signInPage(input: SignInPageInput, status = 200): RenderedPage {
  return consolePage(
    { title: 'Sign in' },
    html`<div class="sign-in panel">
<h1>Sign in to the developer console</h1>
<p class="lead">Your API keys, webhooks, events, OAuth clients and organizations, with your account's email and password.</p>
${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : null}
${input.problem ? html`<p class="alert" role="alert">${input.problem}</p>` : null}
<form method="post" action="${consolePaths.signIn}">
<input type="hidden" name="csrf_token" value="${input.csrfToken}">
<input type="hidden" name="next" value="${input.returnTo}">
${textField({ form: 'sign-in', name: 'email', label: 'Email', type: 'email', value: input.email, required: true, autocomplete: 'username', autofocus: true })}
${textField({ form: 'sign-in', name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password' })}
<button type="submit">Sign in</button>
</form>
<p class="muted">No account yet? <a href="${consolePaths.signUp}">Create one</a>.</p>
</div>`,
    status,
  );
}
