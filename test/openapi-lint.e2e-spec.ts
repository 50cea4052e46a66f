import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, TestApp } from './support';

/**
 * The served document passes Redocly's recommended rules (redocly.yaml) and every rule of
 * Spectral's OpenAPI ruleset (.spectral.yaml) with no problem of any severity. A rule is
 * switched off only in those files, with the reason beside it.
 */
const ROOT = join(__dirname, '..');
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const SPECTRAL = join(ROOT, 'node_modules/@stoplight/spectral-cli/dist/index.js');
/** Neither tool calls home from a test run. */
const OFFLINE = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
const LINT_TIMEOUT_MS = 120_000;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { cwd: ROOT, env: OFFLINE, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('OpenAPI lint: Redocly and Spectral', () => {
  let t: TestApp;
  let directory: string;
  let documentPath: string;

  beforeAll(async () => {
    // A deployment's public origin: the development default (localhost) is a warning of its own.
    t = await createTestApp({ env: { PUBLIC_URL: 'https://api.rms.test' } });
    const res = await t.http.get('/openapi.json').expect(200);
    directory = await mkdtemp(join(tmpdir(), 'rms-openapi-'));
    documentPath = join(directory, 'openapi.json');
    await writeFile(documentPath, JSON.stringify(res.body, null, 2));
  });
  afterAll(async () => {
    await t.close();
    await rm(directory, { recursive: true, force: true });
  });

  it(
    'passes `redocly lint` with the recommended rules: no error, no warning',
    async () => {
      const outcome = await run(REDOCLY, ['lint', documentPath, '--config', join(ROOT, 'redocly.yaml'), '--format=json']);
      const report = JSON.parse(outcome.stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
      expect(report.problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
      expect(outcome.code).toBe(0);
    },
    LINT_TIMEOUT_MS,
  );

  it(
    'passes `spectral lint` with every rule of spectral:oas: no problem of any severity',
    async () => {
      const outcome = await run(SPECTRAL, ['lint', documentPath, '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--fail-severity', 'hint', '--quiet']);
      expect(JSON.parse(outcome.stdout)).toEqual([]);
      expect(outcome.code).toBe(0);
    },
    LINT_TIMEOUT_MS,
  );
});
