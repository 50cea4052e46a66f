import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, stop } from 'esbuild';
import { PROJECT_ROOT, RunningApi, startBuiltApi } from '@app/testing';

const run = promisify(execFile);
const LIBRARY_ROOT = join(PROJECT_ROOT, 'libs/client');
const BIN = join(PROJECT_ROOT, 'node_modules/.bin');
const TSC = join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc');

/**
 * What an integrator's program does with the installed package, after its first line (a
 * `require` or an `import`): an account, a resource with its response, every record of a list,
 * a typed error, and which file of the package the runtime loaded.
 */
const PROGRAM_BODY = `
(async () => {
  const [baseUrl, email, username] = process.argv.slice(2);
  const account = { email, password: 'correct horse battery' };
  const anonymous = createRmsClient({ baseUrl });
  await anonymous.api.POST('/v2/auth/register', { body: { ...account, username } });
  const { data: login } = await anonymous.api.POST('/v2/auth/login', { body: account });
  const rms = createRmsClient({ baseUrl, credentials: { tokens: login.data } });
  const { data: created, response } = await rms.resources.create({ name: 'Made on ' + process.version }).withResponse();
  const listed = [];
  for await (const resource of rms.resources.list({ limit: 10 })) listed.push(resource.id);
  let refused;
  try {
    await rms.resources.create({ name: '' });
  } catch (error) {
    refused = error instanceof RmsApiError ? error.code : String(error);
  }
  process.stdout.write(JSON.stringify({ node: process.version, loaded: LOADED, name: created.name, status: response.status, etag: response.etag, listed: listed.length === 1 && listed[0] === created.id, refused }));
})().catch((error) => { process.stderr.write(String(error && error.stack)); process.exit(1); });
`;
const PROGRAMS = {
  'program.cjs': `const { createRmsClient, RmsApiError } = require('@rms/client');\nconst LOADED = require.resolve('@rms/client');\n${PROGRAM_BODY}`,
  'program.mjs': `import { createRmsClient, RmsApiError } from '@rms/client';\nconst LOADED = import.meta.resolve('@rms/client');\n${PROGRAM_BODY}`,
};

/** Typed use of the package: the record types, `fields` narrowing, and the response. */
const TYPED_MODULE = `
import { createRmsClient, RmsApiError } from '@rms/client';
import type { Resource, ResponseInfo } from '@rms/client';

export async function describeResource(baseUrl: string, id: string): Promise<string> {
  const rms = createRmsClient({ baseUrl, credentials: { apiKey: 'sk_test_x' } });
  const resource: Resource = await rms.resources.get(id);
  const name: string = resource.name;
  const sparse = await rms.resources.get(id, { fields: ['tags'] });
  const tags: string[] = sparse.tags;
  // @ts-expect-error \`fields\` leaves every other field out
  void sparse.name;
  const { response }: { response: ResponseInfo } = await rms.resources.get(id).withResponse();
  try {
    await rms.webhooks.deliveries.retry('wh_x', 'dlv_x');
  } catch (error) {
    if (error instanceof RmsApiError) return error.code;
  }
  return [name, tags.join(), response.etag, response.rateLimit?.remaining].join();
}
`;
const COMPILER_OPTIONS = { strict: true, noEmit: true, lib: ['ES2022', 'DOM'], types: [], skipLibCheck: false };
const TSCONFIGS = {
  'tsconfig.node16.json': { compilerOptions: { ...COMPILER_OPTIONS, module: 'node16', moduleResolution: 'node16' }, files: ['typed.cts', 'typed.mts'] },
  'tsconfig.bundler.json': { compilerOptions: { ...COMPILER_OPTIONS, module: 'esnext', moduleResolution: 'bundler' }, files: ['typed.ts'] },
};

const majorOf = (version: string): number => Number(version.trim().replace(/^v/, '').split('.')[0]);

/**
 * The SDK as integrators get it: `npm pack` builds and packs it, and the tarball installs into
 * an empty project outside the repository, where plain Node (require and import, on Node 24 and
 * on the system's Node 20), TypeScript (node16 and bundler resolution) and a browser bundle
 * use it; publint and Are the Types Wrong check the package.
 */
describe('SDK package', () => {
  let api: RunningApi;
  let packDirectory: string;
  let consumer: string;
  let tarball: string;

  beforeAll(async () => {
    api = await startBuiltApi();
    packDirectory = mkdtempSync(join(tmpdir(), 'rms-sdk-pack-'));
    const { stdout: packed } = await run('npm', ['pack', '--json', '--pack-destination', packDirectory], { cwd: LIBRARY_ROOT, timeout: 240_000 });
    tarball = join(packDirectory, (JSON.parse(packed) as Array<{ filename: string }>)[0].filename);
    consumer = mkdtempSync(join(tmpdir(), 'rms-sdk-consumer-'));
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'rms-sdk-consumer', version: '1.0.0', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: consumer, timeout: 180_000 });
    for (const [file, text] of Object.entries(PROGRAMS)) writeFileSync(join(consumer, file), text);
    for (const file of ['typed.cts', 'typed.mts', 'typed.ts']) writeFileSync(join(consumer, file), TYPED_MODULE);
    for (const [file, config] of Object.entries(TSCONFIGS)) writeFileSync(join(consumer, file), JSON.stringify(config));
  }, 480_000);

  afterAll(async () => {
    await api?.stop();
    for (const directory of [packDirectory, consumer]) if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('declares its dependency, its entry points and its files', () => {
    const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules/@rms/client/package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      dependencies: { 'openapi-fetch': expect.any(String) },
      exports: {
        '.': {
          import: { types: './dist/esm/index.d.ts', default: './dist/esm/index.js' },
          require: { types: './dist/cjs/index.d.ts', default: './dist/cjs/index.js' },
        },
      },
    });
    expect(manifest).not.toHaveProperty('private');
    const installed = JSON.parse(readFileSync(join(consumer, 'node_modules/openapi-fetch/package.json'), 'utf8')) as { name: string };
    expect(installed.name).toBe('openapi-fetch');
  });

  const runtimes = [
    ['require', 'the Node the tests run on', process.execPath, 'program.cjs', 'dist/cjs/index.js'],
    ['import', 'the Node the tests run on', process.execPath, 'program.mjs', 'dist/esm/index.js'],
    ['require', "the system's Node 20", '/usr/bin/node', 'program.cjs', 'dist/cjs/index.js'],
    ['import', "the system's Node 20", '/usr/bin/node', 'program.mjs', 'dist/esm/index.js'],
  ];

  it.each(runtimes)('works with %s on %s', async (_style, _name, node, program, entry) => {
    const { stdout: version } = await run(node, ['--version']);
    if (node === '/usr/bin/node') expect(majorOf(version)).toBe(20);
    const tag = `${program.replace('.', '_')}_${majorOf(version)}_${Date.now().toString(36)}`;
    const { stdout } = await run(node, [program, api.url, `${tag}@example.com`, tag], { cwd: consumer, timeout: 20_000 });
    expect(JSON.parse(stdout)).toEqual({
      node: version.trim(),
      loaded: expect.stringContaining(`node_modules/@rms/client/${entry}`),
      name: `Made on ${version.trim()}`,
      status: 201,
      etag: '"1"',
      listed: true,
      refused: 'validation_error',
    });
  });

  it.each(Object.keys(TSCONFIGS))('type-checks a TypeScript user with %s', async (config) => {
    await expect(run(process.execPath, [TSC, '-p', config], { cwd: consumer, timeout: 120_000 })).resolves.toBeDefined();
  });

  it('fails the type check of a user who reads a field `fields` left out', async () => {
    writeFileSync(join(consumer, 'typed.ts'), TYPED_MODULE.replace('// @ts-expect-error', '//'));
    const failed = await run(process.execPath, [TSC, '-p', 'tsconfig.bundler.json'], { cwd: consumer, timeout: 120_000 }).then(
      () => undefined,
      (error: { stdout: string }) => error.stdout,
    );
    writeFileSync(join(consumer, 'typed.ts'), TYPED_MODULE);
    expect(failed).toMatch(/Property 'name' does not exist/);
  });

  it('bundles for browsers with esbuild', async () => {
    writeFileSync(join(consumer, 'page.js'), "import { createRmsClient, verifyWebhook } from '@rms/client';\nexport const rms = createRmsClient({ baseUrl: location.origin });\nexport { verifyWebhook };\n");
    const bundled = await build({ entryPoints: ['page.js'], absWorkingDir: consumer, bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
    await stop();
    expect(bundled.errors).toEqual([]);
    expect(bundled.outputFiles[0].text).toContain('Idempotency-Key');
  });

  it('passes publint and Are the Types Wrong', async () => {
    const { stdout: lint } = await run(join(BIN, 'publint'), ['run', tarball, '--strict'], { cwd: consumer, timeout: 60_000 });
    expect(lint).toContain('All good');
    const { stdout: types } = await run(join(BIN, 'attw'), [tarball, '--format', 'json'], { cwd: consumer, timeout: 60_000 });
    expect((JSON.parse(types) as { analysis: { problems: unknown[] } }).analysis.problems).toEqual([]);
  });
});
