import { html } from './html';

describe('html', () => {
  it('escapes text, keeps the markup it built, and leaves nothing out for empty values', () => {
    const name = '<script>alert("x")</script>';
    const item = html`<li>${name}</li>`;
    expect(html`<ul>${[item, null, undefined, false]}</ul><p title="${"a'b"}">${3}</p>`.markup).toBe(
      '<ul><li>&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;</li></ul><p title="a&#39;b">3</p>',
    );
  });
});
