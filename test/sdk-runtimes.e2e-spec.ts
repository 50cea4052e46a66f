import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, stop } from 'esbuild';
import { PROJECT_ROOT, RunningApi, startBuiltApi } from '@app/testing';

const run = promisify(execFile);

/** A small program a Node user of the SDK would write: an account, a resource, a page of the list, a typed error. */
const PROGRAM = `
const { createRmsClient, RmsApiError, unwrap } = require('./sdk.cjs');
(async () => {
  const baseUrl = process.argv[2];
  const account = { email: process.argv[3], password: 'correct horse battery' };
  const anonymous = createRmsClient({ baseUrl });
  await unwrap(anonymous.api.POST('/v2/auth/register', { body: { ...account, username: process.argv[4] } }));
  const { data: tokens } = await unwrap(anonymous.api.POST('/v2/auth/login', { body: account }));
  const rms = createRmsClient({ baseUrl, credentials: { tokens } });
  const { data: created } = await unwrap(rms.api.POST('/v2/resources', { body: { name: 'Made on ' + process.version } }));
  const listed = [];
  for await (const resource of rms.paginate('/v2/resources', { params: { query: { limit: 10 } } })) listed.push(resource.id);
  let refused;
  try {
    await rms.api.POST('/v2/resources', { body: { name: '' } });
  } catch (error) {
    refused = error instanceof RmsApiError ? error.code : String(error);
  }
  process.stdout.write(JSON.stringify({ node: process.version, name: created.name, listed: listed.length === 1 && listed[0] === created.id, refused }));
})().catch((error) => { process.stderr.write(String(error && error.stack)); process.exit(1); });
`;

const majorOf = (version: string): number => Number(version.trim().replace(/^v/, '').split('.')[0]);

/**
 * The SDK keeps its users' choice of runtime: the service runs on Node 24, the SDK still runs on
 * Node 20 (the system's Node here) as well as on 24, bundled as a Node application bundles it.
 */
describe('SDK runtimes', () => {
  let api: RunningApi;
  let directory: string;

  beforeAll(async () => {
    api = await startBuiltApi();
    directory = mkdtempSync(join(tmpdir(), 'rms-sdk-runtimes-'));
    await build({
      entryPoints: [join(PROJECT_ROOT, 'libs/client/src/index.ts')],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      outfile: join(directory, 'sdk.cjs'),
    });
    // esbuild answers from a service process of its own, which would outlive the run.
    await stop();
    writeFileSync(join(directory, 'program.cjs'), PROGRAM);
  }, 60_000);

  afterAll(async () => {
    await api?.stop();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  const runtimes: Array<[string, string]> = [
    ['the Node the tests run on', process.execPath],
    ["the system's Node 20", '/usr/bin/node'],
  ];

  it.each(runtimes)('runs on %s', async (_name, node) => {
    const { stdout: version } = await run(node, ['--version']);
    if (node === '/usr/bin/node') expect(majorOf(version)).toBe(20);
    const tag = `${majorOf(version)}_${Date.now().toString(36)}`;
    const { stdout } = await run(node, ['program.cjs', api.url, `sdk_${tag}@example.com`, `sdk_${tag}`], { cwd: directory, timeout: 20_000 });
    expect(JSON.parse(stdout)).toEqual({ node: version.trim(), name: `Made on ${version.trim()}`, listed: true, refused: 'validation_error' });
  });
});
