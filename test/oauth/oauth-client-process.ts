import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The OAuth client libraries the suites drive, each from its script in `clients/`. */
export type ClientLibrary = 'openid-client' | 'oauth4webapi';

export type ClientCommand = 'discover' | 'authorization-url' | 'code-grant' | 'refresh' | 'client-credentials' | 'introspect' | 'revoke';

/** What a library threw: its own code, or the server's RFC 6749 `error` and the status. */
export interface ClientError {
  name?: string;
  message?: string;
  code?: string;
  error?: string;
  error_description?: string;
  status?: number;
}

export type ClientOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: ClientError };

/**
 * Runs one command of a real client library in its own Node process (the libraries are ES modules
 * only; Jest runs CommonJS), against the listening test app; `input` names the issuer and client.
 */
export async function runClient(library: ClientLibrary, command: ClientCommand, input: Record<string, unknown>): Promise<ClientOutcome> {
  const script = join(__dirname, 'clients', `${library}.mjs`);
  const { stdout } = await run(process.execPath, [script, command, JSON.stringify(input)], { timeout: 20_000 });
  return JSON.parse(stdout) as ClientOutcome;
}

/** The result of a command that must succeed; its error, when it did not, fails the test with what the library said. */
export async function clientResult(library: ClientLibrary, command: ClientCommand, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const outcome = await runClient(library, command, input);
  if (!outcome.ok) throw new Error(`${library} ${command} failed: ${JSON.stringify(outcome.error)}`);
  return outcome.result;
}
