import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SUPPORTED_NODE_MAJOR } from '@app/config';
import { freePort, PROJECT_ROOT, RunningApi, RunningWorker, startBuiltApi, startBuiltWorker } from '@app/testing';

const run = promisify(execFile);
const BUILT_CLI = join(PROJECT_ROOT, 'dist/apps/api/src/cli.js');

/** The `version` label of prom-client's `nodejs_version_info` in a Prometheus text page. */
function nodeVersionOf(metrics: string): string | undefined {
  return /^nodejs_version_info\{[^}]*version="(v[^"]+)"/m.exec(metrics)?.[1];
}

const majorOf = (version: string): number => Number(version.replace(/^v/, '').split('.')[0]);

/** The Node.js the service runs on: every process the npm scripts start, and the refusal of an older one. */
describe('Runtime', () => {
  let api: RunningApi;
  let worker: RunningWorker;
  let workerMetricsPort: number;

  beforeAll(async () => {
    workerMetricsPort = await freePort();
    [api, worker] = await Promise.all([startBuiltApi(), startBuiltWorker({ WORKER_METRICS_PORT: String(workerMetricsPort) })]);
  });

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.terminate()]);
  });

  it('runs the tests themselves on the supported line', () => {
    expect(majorOf(process.version)).toBeGreaterThanOrEqual(SUPPORTED_NODE_MAJOR);
  });

  it('runs the API on the supported line', async () => {
    const response = await fetch(`${api.url}/metrics`);
    expect(response.status).toBe(200);
    const version = nodeVersionOf(await response.text());
    expect(version).toBe(process.version);
    expect(majorOf(version ?? '')).toBeGreaterThanOrEqual(SUPPORTED_NODE_MAJOR);
  });

  it('runs the worker on the supported line', async () => {
    const response = await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`);
    expect(response.status).toBe(200);
    const version = nodeVersionOf(await response.text());
    expect(version).toBe(process.version);
  });

  it('runs `npm run cli` on the supported line, as the npm scripts put the project\'s Node first', async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'cli', '--', '--help'], { cwd: PROJECT_ROOT, env: process.env });
    expect(stdout).toMatch(/Usage/i);
    const { stdout: version } = await run('npm', ['exec', '--', 'node', '--version'], { cwd: PROJECT_ROOT, env: process.env });
    expect(majorOf(version.trim())).toBeGreaterThanOrEqual(SUPPORTED_NODE_MAJOR);
  });

  it('warns, first, on an older runtime with what it needs', async () => {
    // The system's Node where it is older than the supported line (Debian's /usr/bin/node here).
    const { stdout: systemVersion } = await run('/usr/bin/node', ['--version']);
    expect(majorOf(systemVersion)).toBeLessThan(SUPPORTED_NODE_MAJOR);
    const { stdout, stderr } = await run('/usr/bin/node', [BUILT_CLI, '--help'], { cwd: PROJECT_ROOT, env: process.env });
    expect(stderr.split('\n')[0]).toBe(
      `Unsupported runtime: this service needs Node.js ${SUPPORTED_NODE_MAJOR} or later; this is Node.js ${systemVersion.trim().slice(1)}. ` +
        `Run it through the npm scripts (npm start, npm run start:api, npm run cli), which use the Node.js ${SUPPORTED_NODE_MAJOR} ` +
        `that npm ci installs, or install Node.js ${SUPPORTED_NODE_MAJOR} LTS.`,
    );
    expect(stdout).toMatch(/Usage/i);
  });
});
