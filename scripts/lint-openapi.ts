import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CLIENT_TYPES_FILE, OPENAPI_DOCUMENT_FILE, OPENAPI_WRITE_COMMAND, readCommittedDocument, renderClientTypes } from './openapi-document';

/**
 * `npm run lint:openapi`, part of `npm run lint`: the committed openapi.json passes Redocly's
 * recommended rules (redocly.yaml) with no error and no warning, and every rule of Spectral's
 * OpenAPI ruleset (.spectral.yaml) with no problem of any severity; the committed SDK types are
 * those openapi-typescript renders from it. The three run at once: Spectral alone takes most of
 * the time, and lint shares the machine with the build and the unit tier.
 */
const ROOT = join(__dirname, '..');
const DOCUMENT = relative(ROOT, OPENAPI_DOCUMENT_FILE);
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const SPECTRAL = join(ROOT, 'node_modules/@stoplight/spectral-cli/dist/index.js');
/** Neither tool calls home or colours its output. */
const OFFLINE = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

interface Outcome {
  check: string;
  /** What went wrong, empty when the check passed. */
  problems: string;
  seconds: number;
}

interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

function runTool(script: string, args: string[]): Promise<ToolRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { cwd: ROOT, env: OFFLINE, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? 1 : 0, stdout, stderr });
    });
  });
}

interface RedoclyReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer?: string }> }>;
}

/** Redocly exits 0 on warnings, so its JSON report is read instead of its exit code. */
async function redocly(): Promise<string> {
  const run = await runTool(REDOCLY, ['lint', DOCUMENT, '--config', 'redocly.yaml', '--format=json']);
  let report: RedoclyReport;
  try {
    report = JSON.parse(run.stdout) as RedoclyReport;
  } catch {
    return `${run.stdout}${run.stderr}`;
  }
  if (run.code === 0 && report.totals.errors === 0 && report.totals.warnings === 0) return '';
  const lines = report.problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer ?? DOCUMENT})`);
  return [`${report.totals.errors} errors, ${report.totals.warnings} warnings`, ...lines].join('\n');
}

async function spectral(): Promise<string> {
  const run = await runTool(SPECTRAL, ['lint', DOCUMENT, '--ruleset', '.spectral.yaml', '--fail-severity', 'hint']);
  return run.code === 0 ? '' : `${run.stdout}${run.stderr}`;
}

/** The first line where two texts differ, to show what changed without printing 8,000 lines. */
function firstDifference(rendered: string, committed: string): string {
  const renderedLines = rendered.split('\n');
  const committedLines = committed.split('\n');
  const line = renderedLines.findIndex((text, index) => text !== committedLines[index]);
  const at = line === -1 ? renderedLines.length : line;
  return `line ${at + 1}: rendered ${JSON.stringify(renderedLines[at])}, committed ${JSON.stringify(committedLines[at])}`;
}

async function clientTypes(): Promise<string> {
  const rendered = await renderClientTypes(readCommittedDocument());
  const committed = readFileSync(CLIENT_TYPES_FILE, 'utf8');
  if (rendered === committed) return '';
  return (
    `${relative(ROOT, CLIENT_TYPES_FILE)} is not what ${DOCUMENT} renders: run \`${OPENAPI_WRITE_COMMAND}\` and commit both ` +
    `(first difference at ${firstDifference(rendered, committed)}).`
  );
}

async function timed(check: string, run: () => Promise<string>): Promise<Outcome> {
  const started = performance.now();
  const problems = await run().catch((error: unknown) => (error instanceof Error ? (error.stack ?? error.message) : String(error)));
  return { check, problems, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<number> {
  const outcomes = await Promise.all([
    timed(`redocly lint ${DOCUMENT}`, redocly),
    timed(`spectral lint ${DOCUMENT}`, spectral),
    timed(`SDK types from ${DOCUMENT}`, clientTypes),
  ]);
  for (const { check, problems, seconds } of outcomes) {
    process.stdout.write(`${problems ? 'FAIL' : 'ok  '} ${check} (${seconds.toFixed(1)} s)\n`);
    if (problems) process.stdout.write(`${problems.trimEnd()}\n`);
  }
  return outcomes.some((outcome) => outcome.problems) ? 1 : 0;
}

void main().then((code) => {
  process.exitCode = code;
});
