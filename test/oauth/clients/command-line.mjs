// One command of an OAuth client library per process, for Jest, whose CommonJS cannot load
// these ES-module-only libraries: `node <client>.mjs <command> '<input as JSON>'` prints
// `{ "ok": true, "result": ... }` or, when the library threw, `{ "ok": false, "error": ... }`.
import process from 'node:process';

/** What a library's error says: its code, and the server's RFC 6749 error when there was one. */
function describeError(error) {
  return {
    name: error?.name,
    message: error?.message,
    code: error?.code,
    error: error?.error,
    error_description: error?.error_description,
    status: error?.status,
    cause: error?.cause?.message,
  };
}

export async function runCommand(commands) {
  const [command, json] = process.argv.slice(2);
  const run = commands[command];
  if (!run) throw new Error(`Unknown command ${command}; known: ${Object.keys(commands).join(', ')}`);
  const input = JSON.parse(json ?? '{}');
  let answer;
  try {
    answer = { ok: true, result: (await run(input)) ?? null };
  } catch (error) {
    answer = { ok: false, error: describeError(error) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
