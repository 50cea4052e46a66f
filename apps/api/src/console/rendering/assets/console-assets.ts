import { createHash } from 'node:crypto';
import { consolePaths } from '../../console-paths';
import { CONSOLE_ICON } from './console-icon';
import { CONSOLE_SCRIPT } from './console-script';
import { CONSOLE_STYLESHEET } from './console-stylesheet';

export interface ConsoleAsset {
  contentType: string;
  body: string;
}

/** A file name that changes with the content, so that browsers may keep each version for good. */
function versionedName(stem: string, extension: string, body: string): string {
  return `${stem}-${createHash('sha256').update(body, 'utf8').digest('hex').slice(0, 16)}.${extension}`;
}

const STYLESHEET_NAME = versionedName('console', 'css', CONSOLE_STYLESHEET);
const SCRIPT_NAME = versionedName('console', 'js', CONSOLE_SCRIPT);
const ICON_NAME = versionedName('console', 'svg', CONSOLE_ICON);

export const STYLESHEET_PATH = `${consolePaths.assets}/${STYLESHEET_NAME}`;
export const SCRIPT_PATH = `${consolePaths.assets}/${SCRIPT_NAME}`;
export const ICON_PATH = `${consolePaths.assets}/${ICON_NAME}`;

/** The console's static files, by file name. */
export const CONSOLE_ASSETS: ReadonlyMap<string, ConsoleAsset> = new Map([
  [STYLESHEET_NAME, { contentType: 'text/css; charset=utf-8', body: CONSOLE_STYLESHEET }],
  [SCRIPT_NAME, { contentType: 'text/javascript; charset=utf-8', body: CONSOLE_SCRIPT }],
  [ICON_NAME, { contentType: 'image/svg+xml; charset=utf-8', body: CONSOLE_ICON }],
]);
