import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The nearest folder above `from` that holds nest-cli.json: the repository root, from source or compiled (.bench/dist). */
function repositoryRoot(from: string): string {
  for (let folder = from; ; folder = dirname(folder)) {
    if (existsSync(join(folder, 'nest-cli.json'))) return folder;
    if (dirname(folder) === folder) throw new Error(`No nest-cli.json above ${from}`);
  }
}

/** The repository root, where entry points run from. */
export const PROJECT_ROOT = repositoryRoot(__dirname);

/**
 * Node arguments that run a TypeScript file from source, path aliases included: for the
 * scripts, which the build leaves out. The hooks are named by absolute path so that a process
 * may run from another directory too.
 */
export const FROM_SOURCE = ['-r', require.resolve('ts-node/register/transpile-only'), '-r', require.resolve('tsconfig-paths/register')];

/**
 * The compiled counterpart in dist/ of a file of apps/ or libs/ (`apps/worker/src/main.ts` →
 * `dist/apps/worker/src/main.js`): processes start from the build, as operators run them and
 * without compiling the source again. `npm test` builds before the tiers that start them.
 */
export function built(sourceFile: string): string {
  const compiled = resolve(PROJECT_ROOT, 'dist', sourceFile.replace(/\.ts$/, '.js'));
  if (!existsSync(compiled)) throw new Error(`${compiled} is missing: run npm run build`);
  return compiled;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Where and with what the CLI runs, when not as the test run's own operator. */
export interface CliSetting {
  /** Working directory, where the CLI reads `.env` (default: the repository root). */
  cwd?: string;
  /** Start from a fresh shell's environment (`PATH` alone) instead of the test run's. */
  bareEnvironment?: boolean;
}

/**
 * Runs the built admin CLI against the run's database (environment from the global
 * setup) unless `setting` says otherwise; `env` is added to the environment; `input` is written
 * to its standard input, which is otherwise closed at once.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, input = '', setting: CliSetting = {}): Promise<CliResult> {
  const inherited = setting.bareEnvironment ? { PATH: process.env.PATH } : process.env;
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [built('apps/api/src/cli.ts'), ...args],
      { cwd: setting.cwd ?? PROJECT_ROOT, env: { ...inherited, ...env } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}
