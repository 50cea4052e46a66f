import { escapeHtml } from '../../platform/pages/page-layout';

/** Markup already built by `html`: inserted into another template as it is. */
export class Html {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

/** What a template may interpolate: text is escaped, markup kept, nothing (null, undefined, false) left out. */
export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  return escapeHtml(String(value));
}

/**
 * A template tag for every console page: each interpolated value is escaped unless it is markup
 * this tag built, so a page cannot forget to escape a name, a URL or a payload.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let markup = strings[0];
  values.forEach((value, index) => {
    markup += render(value) + strings[index + 1];
  });
  return new Html(markup);
}
