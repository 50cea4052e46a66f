import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/**
 * Adds the settings of an env file to `env`, except those `env` already has: a variable set in
 * the shell wins over the file, as in `scripts/start.sh`. The file is read by Node's own parser
 * (`node --env-file`'s), which start.sh uses too, so both read one file alike. A missing file adds
 * nothing.
 */
export function loadEnvFile(path: string, env: NodeJS.ProcessEnv = process.env): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] === undefined && value !== undefined) env[name] = value;
  }
}
