import type { FieldProblem } from '@app/common';
import type { RenderedPage } from '../../platform/pages/page-layout';
import { consolePaths } from '../console-paths';
import { consolePage } from '../rendering/console-layout';
import { problemSummary, textField } from '../rendering/forms';
import { html } from '../rendering/html';

const FORM = 'sign-up';
const LABELS = { email: 'Email', username: 'Username', password: 'Password' };

export interface SignUpPageInput {
  csrfToken: string;
  /** What was sent, to fill the form again; never the password. */
  values: { email?: string; username?: string };
  problems: readonly FieldProblem[];
}

export function signUpPage(input: SignUpPageInput, status = 200): RenderedPage {
  const { values, problems } = input;
  return consolePage(
    { title: 'Create an account' },
    html`<div class="sign-in panel">
<h1>Create an account</h1>
<p class="lead">An account on the free plan, signed in at once: then make an API key or a webhook.</p>
<form method="post" action="${consolePaths.signUp}" aria-label="Create an account">
<input type="hidden" name="csrf_token" value="${input.csrfToken}">
${problemSummary(FORM, problems, LABELS)}
${textField({ form: FORM, name: 'email', label: LABELS.email, type: 'email', value: values.email, required: true, autocomplete: 'email', autofocus: problems.length === 0, problems })}
${textField({ form: FORM, name: 'username', label: LABELS.username, hint: '3-30 characters of a-z, 0-9, _ and -.', value: values.username, required: true, autocomplete: 'username', problems })}
${textField({ form: FORM, name: 'password', label: LABELS.password, type: 'password', hint: '10-128 characters.', required: true, autocomplete: 'new-password', problems })}
<button type="submit">Create account</button>
</form>
<p class="muted">Have an account? <a href="${consolePaths.signIn}">Sign in</a>.</p>
</div>`,
    status,
  );
}
