import { CONSOLE_HOME, safeReturnPath } from './console-paths';

describe('safeReturnPath', () => {
  it('keeps a console path and its query', () => {
    expect(safeReturnPath('/console/webhooks/wh_1?page=2')).toBe('/console/webhooks/wh_1?page=2');
    expect(safeReturnPath('/console')).toBe('/console');
  });

  it('sends anything else to the console home', () => {
    for (const value of [undefined, 42, '', 'https://evil.example/console', '//evil.example/console', '/\\evil.example/console', '/v2/users/me', '/consoles', '/console/../v2/users', '/console/sign-in?next=/console', '/console/sign-up']) {
      expect(safeReturnPath(value)).toBe(CONSOLE_HOME);
    }
  });
});
