import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { built, PROJECT_ROOT } from './support';

/** A fenced code block of a Markdown file, marked for the tests by an HTML comment before it. */
export interface DocBlock {
  name: string;
  language: string;
  code: string;
}

/**
 * Every fenced block that directly follows `<!-- <marker>: <name> -->` in a Markdown file of the
 * project, in the order they appear. Readers do not see the comment; the tests find the block.
 */
export function markedBlocks(file: string, marker: string): DocBlock[] {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  const pattern = new RegExp(`<!-- ${marker}: ([\\w.-]+) -->\\n\`\`\`(\\w+)\\n([\\s\\S]*?)\\n\`\`\`\\n`, 'g');
  return [...text.matchAll(pattern)].map(([, name, language, code]) => ({ name, language, code }));
}

/** The one block of that name; fails when the document has none or several. */
export function markedBlock(file: string, marker: string, name: string): DocBlock {
  const found = markedBlocks(file, marker).filter((block) => block.name === name);
  if (found.length !== 1) throw new Error(`${file} has ${found.length} blocks marked "${marker}: ${name}"`);
  return found[0];
}

export interface ShellResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs each block in a bash of its own, as if it were pasted into the one terminal where the
 * blocks before it ran: the variables and functions a block defines are saved after it and
 * defined again before the next. `set -e -o pipefail` makes any failed command fail the block.
 */
export class ShellSession {
  private readonly stateFile: string;
  private blocks = 0;

  constructor(
    private readonly dir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.stateFile = join(dir, 'session-state.sh');
  }

  run(code: string, timeoutMs = 60_000): Promise<ShellResult> {
    this.blocks += 1;
    const blockFile = join(this.dir, `block-${this.blocks}.sh`);
    writeFileSync(blockFile, `${code}\n`);
    const script = [
      `__before=" $(compgen -v | tr '\\n' ' ') $(compgen -A function | tr '\\n' ' ') "`,
      'set -e -o pipefail',
      'if [ -f "$__STATE" ]; then . "$__STATE"; fi',
      '. "$__BLOCK"',
      '{',
      '  for __name in $(compgen -v); do',
      '    case "$__before" in *" $__name "*) continue ;; esac',
      '    case "$__name" in __* | BASH* | FUNCNAME | PIPESTATUS) continue ;; esac',
      '    declare -p "$__name"',
      '  done',
      '  for __name in $(compgen -A function); do',
      '    case "$__before" in *" $__name "*) continue ;; esac',
      '    declare -f "$__name"',
      '  done',
      '} > "$__STATE.next"',
      'mv "$__STATE.next" "$__STATE"',
    ].join('\n');
    return runProcess('bash', ['-c', script], { ...this.env, __STATE: this.stateFile, __BLOCK: blockFile }, this.dir, timeoutMs);
  }

  /** A variable the blocks so far have set. */
  async variable(name: string): Promise<string> {
    const result = await runProcess('bash', ['-c', `. "$__STATE" && printf %s "$${name}"`], { ...this.env, __STATE: this.stateFile }, this.dir, 10_000);
    if (result.code !== 0) throw new Error(`reading ${name} failed: ${result.stderr}`);
    return result.stdout;
  }
}

/**
 * Runs a program to its end; `code` is null when it was killed after `timeoutMs`. It leads its own
 * process group, so a timeout stops whatever a shell started too.
 */
export function runProcess(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number, input = ''): Promise<ShellResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

/**
 * A long-running process whose output is kept, such as the receiver of docs/webhooks.md. It
 * leads a process group of its own, so that stopping it stops what a shell started too.
 */
export class Background {
  output = '';
  readonly process: ChildProcess;

  constructor(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string) {
    this.process = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.process.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.process.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  async stop(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    const exited = new Promise((resolve) => this.process.once('exit', resolve));
    process.kill(-(this.process.pid as number), 'SIGTERM');
    await exited;
  }
}

/** The built worker, once it logs that it is ready, its output kept. */
export async function startWorkerProcess(env: NodeJS.ProcessEnv, readyWithinMs = 60_000): Promise<Background> {
  const worker = new Background(process.execPath, [built('apps/worker/src/main.ts')], { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env }, PROJECT_ROOT);
  const deadline = Date.now() + readyWithinMs;
  while (!worker.output.includes('"msg":"Worker ready"')) {
    if (worker.process.exitCode !== null) throw new Error(`the worker exited with ${worker.process.exitCode}:\n${worker.output}`);
    if (Date.now() > deadline) {
      await worker.stop();
      throw new Error(`the worker was not ready within ${readyWithinMs} ms:\n${worker.output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return worker;
}
