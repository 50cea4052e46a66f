import type { FieldProblem } from '@app/common';
import { hiddenInputs } from '../../platform/pages/page-layout';
import { newSubmissionToken, SUBMISSION_FIELD } from '../access/form-token';
import type { SignedInUser } from '../access/signed-in-user';
import { Html, html } from './html';

/** The CSRF field of every console form: the session's token, as on the OAuth consent page. */
export function csrfField(user: SignedInUser): Html {
  return new Html(hiddenInputs({ csrf_token: user.csrfToken }));
}

/** The one-time token of a form that creates something: sent twice, it creates once (FormSubmissions). */
export function submissionField(): Html {
  return new Html(hiddenInputs({ [SUBMISSION_FIELD]: newSubmissionToken() }));
}

export interface Choice {
  value: string;
  label: string;
}

interface FieldBase {
  /** Which form the field is in, for ids unique on a page with several forms. */
  form: string;
  name: string;
  label: string;
  hint?: string;
  problems?: readonly FieldProblem[];
}

/** The id of a field's control, where the problem summary's link leads. */
function fieldId(form: string, name: string): string {
  return `${form}-${name.replace(/_/g, '-')}`;
}

/** The messages about one field, `scopes[2]` and `url` alike. */
function messagesFor(problems: readonly FieldProblem[] | undefined, name: string): string[] {
  return (problems ?? []).filter(({ field }) => field === name || field.startsWith(`${name}[`) || field.startsWith(`${name}.`)).map(({ message }) => message);
}

/** The hint and problem lines of a field, and the ids that describe its control. */
function annotations(field: FieldBase): { notes: Html; describedBy: string | null; invalid: boolean } {
  const id = fieldId(field.form, field.name);
  const messages = messagesFor(field.problems, field.name);
  const ids = [field.hint ? `${id}-hint` : null, messages.length > 0 ? `${id}-problem` : null].filter((value): value is string => value !== null);
  return {
    notes: html`${field.hint ? html`<span class="hint" id="${id}-hint">${field.hint}</span>` : null}${
      messages.length > 0 ? html`<span class="field-problem" id="${id}-problem">${field.label} ${messages.join('; ')}.</span>` : null
    }`,
    describedBy: ids.length > 0 ? ids.join(' ') : null,
    invalid: messages.length > 0,
  };
}

function describedBy(ids: string | null, invalid: boolean): Html {
  return html`${ids ? html` aria-describedby="${ids}"` : null}${invalid ? html` aria-invalid="true"` : null}`;
}

export interface TextFieldInput extends FieldBase {
  value?: string;
  type?: 'text' | 'url' | 'email' | 'password';
  multiline?: boolean;
  required?: boolean;
  autocomplete?: string;
  autofocus?: boolean;
}

export function textField(field: TextFieldInput): Html {
  const id = fieldId(field.form, field.name);
  const { notes, describedBy: ids, invalid } = annotations(field);
  const common = html`id="${id}" name="${field.name}"${field.required ? html` required` : null}${
    field.autocomplete ? html` autocomplete="${field.autocomplete}"` : null
  }${field.autofocus ? html` autofocus` : null}${describedBy(ids, invalid)}`;
  const control = field.multiline
    ? html`<textarea ${common}>${field.value ?? ''}</textarea>`
    : html`<input ${common} type="${field.type ?? 'text'}" value="${field.value ?? ''}">`;
  return html`<div class="field"><label for="${id}">${field.label}</label>${notes}${control}</div>`;
}

export interface ChoiceFieldInput extends FieldBase {
  kind: 'checkbox' | 'radio';
  choices: readonly Choice[];
  checked: readonly string[];
}

/** Checkboxes or radio buttons in a fieldset; the first control takes the field's id. */
export function choiceField(field: ChoiceFieldInput): Html {
  const id = fieldId(field.form, field.name);
  const { notes, describedBy: ids, invalid } = annotations(field);
  const controls = field.choices.map(
    (choice, index) =>
      html`<label class="choice"><input type="${field.kind}" name="${field.name}" value="${choice.value}"${index === 0 ? html` id="${id}"` : null}${
        field.checked.includes(choice.value) ? html` checked` : null
      }${describedBy(ids, invalid)}>${choice.label}</label>`,
  );
  return html`<fieldset class="field"><legend>${field.label}</legend>${notes}<div class="choices">${controls}</div></fieldset>`;
}

export interface SelectFieldInput extends FieldBase {
  choices: readonly Choice[];
  selected?: string;
}

export function selectField(field: SelectFieldInput): Html {
  const id = fieldId(field.form, field.name);
  const { notes, describedBy: ids, invalid } = annotations(field);
  const options = field.choices.map(
    (choice) => html`<option value="${choice.value}"${choice.value === field.selected ? html` selected` : null}>${choice.label}</option>`,
  );
  return html`<div class="field"><label for="${id}">${field.label}</label>${notes}<select id="${id}" name="${field.name}"${describedBy(ids, invalid)}>${options}</select></div>`;
}

/**
 * The problems of a form sent back, first thing in it: each links to its field, and the list
 * is announced, so that a keyboard or screen reader user finds what to fix.
 */
export function problemSummary(form: string, problems: readonly FieldProblem[], labels: Record<string, string>): Html | null {
  if (problems.length === 0) return null;
  const items = problems.map(({ field, message }) => {
    const name = field.split(/[.[]/)[0];
    const label = labels[name] ?? name;
    return html`<li><a href="#${fieldId(form, name)}">${label} ${message}</a></li>`;
  });
  return html`<div class="alert" role="alert"><p>Nothing was saved. Fix these and send the form again:</p><ul>${items}</ul></div>`;
}

export interface ActionButtonInput {
  user: SignedInUser;
  action: string;
  label: string;
  /** Words after the label for screen readers, to tell apart the same button on several records. */
  labelSuffix?: string;
  tone?: 'primary' | 'secondary' | 'danger';
  /** A question the script asks before sending; without the script the form is sent at once. */
  confirm?: string;
}

/** A form of one button that posts to `action` with the CSRF token. */
export function actionButton(input: ActionButtonInput): Html {
  const tone = input.tone && input.tone !== 'primary' ? html` class="${input.tone}"` : null;
  return html`<form method="post" action="${input.action}"${input.confirm ? html` data-confirm="${input.confirm}"` : null}>${csrfField(input.user)}<button type="submit"${tone}>${input.label}${
    input.labelSuffix ? html`<span class="visually-hidden"> ${input.labelSuffix}</span>` : null
  }</button></form>`;
}
