// Builds the package into dist/: ES modules (dist/esm) and CommonJS (dist/cjs), each with its
// declarations. tsc does not copy the generated .d.ts, so it is copied beside each output, and a
// package.json in each folder tells Node which module system its .js files use.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const tscAlias = require.resolve('tsc-alias/dist/bin/index.js');
const builds = [
  { config: 'tsconfig.cjs.json', folder: 'dist/cjs', type: 'commonjs' },
  { config: 'tsconfig.esm.json', folder: 'dist/esm', type: 'module' },
];

rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const { config, folder, type } of builds) {
  execFileSync(process.execPath, [tsc, '-p', config], { cwd: root, stdio: 'inherit' });
  mkdirSync(join(root, folder, 'generated'), { recursive: true });
  copyFileSync(join(root, 'src/generated/openapi.d.ts'), join(root, folder, 'generated/openapi.d.ts'));
  if (type === 'module') execFileSync(process.execPath, [tscAlias, '-p', config], { cwd: root, stdio: 'inherit' });
  writeFileSync(join(root, folder, 'package.json'), `${JSON.stringify({ type }, null, 2)}\n`);
}
