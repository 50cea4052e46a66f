/**
 * The console's one script, served as a file (`ConsoleAssetsController`), and only an aid: every
 * page works without it. It shows the copy buttons (hidden otherwise, since they need it), asks
 * before a form that destroys something is sent, and reloads a page that says something on it is
 * pending (a delivery), every few seconds, until a reload says nothing is; never while a form is
 * being filled in or a folded block is open, so that nothing typed or read is lost.
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
const pending = document.querySelector('[data-refresh-seconds]');
if (pending) {
  const delay = Number(pending.dataset.refreshSeconds) * 1000;
  let edited = false;
  document.addEventListener('input', () => { edited = true; });
  pending.hidden = false;
  const reloadWhenIdle = () => {
    const active = document.activeElement;
    const busy = edited || (active && active.matches('input, select, textarea')) || document.querySelector('details[open]');
    if (busy) setTimeout(reloadWhenIdle, delay);
    else window.location.reload();
  };
  setTimeout(reloadWhenIdle, delay);
}
`;
