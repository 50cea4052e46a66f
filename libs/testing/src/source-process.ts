import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

/** The repository root, where entry points run from. */
export const PROJECT_ROOT = resolve(__dirname, '../../..');

/** Node arguments that run a TypeScript entry point from source, path aliases included. */
export const FROM_SOURCE = ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the admin CLI from source against the run's database (environment from the global
 * setup); `input` is written to its standard input, which is otherwise closed at once.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, input = ''): Promise<CliResult> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [...FROM_SOURCE, 'apps/api/src/cli.ts', ...args],
      { cwd: PROJECT_ROOT, env: { ...process.env, ...env } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}
