/**
 * The console's one script, served as a file (`ConsoleAssetsController`), and only an aid: every
 * page works without it. It shows the copy buttons (hidden otherwise, since they need it) and
 * asks before a form that destroys something is sent.
 */
export const CONSOLE_SCRIPT = `'use strict';
for (const button of document.querySelectorAll('button[data-copy]')) {
  const source = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.copy + '-status');
  button.hidden = false;
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(source.textContent.trim()).then(
      () => { status.textContent = 'Copied to the clipboard.'; },
      () => { status.textContent = 'Copying failed: select the text and copy it.'; },
    );
  });
}
for (const form of document.querySelectorAll('form[data-confirm]')) {
  form.addEventListener('submit', (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
}
`;
