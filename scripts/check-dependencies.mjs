/**
 * Checks the import rules of .dependency-cruiser.cjs on apps/ and libs/ of the working directory,
 * and that no two top-level folders import each other (below); prints each violation and exits
 * non-zero on any error. dependency-cruiser's own command line refuses Node 20 (its engines say
 * ^22); its API, used here, runs on it.
 */
import { existsSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { cruise, format } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const RULES = fileURLToPath(new URL('../.dependency-cruiser.cjs', import.meta.url));
const TS_CONFIG = 'tsconfig.json';
/** A context of the API, a folder of the worker, a library. */
const TOP_FOLDER = /^(apps\/[^/]+\/src\/[^/]+|libs\/[^/]+)\//;

/**
 * Cycles between top-level folders, each file folded into its folder. dependency-cruiser's folder
 * rule takes an import at the folder of the file it names, so it misses a ring that returns
 * through a subfolder, such as auth/ → api-keys/ → auth/guards/.
 */
function topFolderCycles(modules) {
  const edges = new Map();
  for (const module of modules) {
    const from = TOP_FOLDER.exec(module.source)?.[1];
    for (const dependency of module.dependencies) {
      const to = TOP_FOLDER.exec(dependency.resolved)?.[1];
      if (!from || !to || from === to) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from).has(to)) edges.get(from).set(to, `${module.source} → ${dependency.resolved}`);
    }
  }
  const reaches = (start, goal) => {
    const seen = new Set([start]);
    const pending = [start];
    while (pending.length > 0) {
      for (const next of edges.get(pending.pop())?.keys() ?? []) {
        if (next === goal) return true;
        if (seen.has(next)) continue;
        seen.add(next);
        pending.push(next);
      }
    }
    return false;
  };
  const folders = [...edges.keys()].sort();
  const reported = new Set();
  const cycles = [];
  for (const folder of folders) {
    if (reported.has(folder) || !reaches(folder, folder)) continue;
    const ring = folders.filter((other) => other === folder || (reaches(folder, other) && reaches(other, folder)));
    ring.forEach((member) => reported.add(member));
    const imports = ring.flatMap((from) => ring.flatMap((to) => edges.get(from)?.get(to) ?? []));
    cycles.push(`  error no-context-cycle: ${ring.join(' ⇄ ')}\n${imports.map((line) => `      ${line}`).join('\n')}\n`);
  }
  return cycles;
}

const options = await extractDepcruiseOptions(RULES);
// The project's path aliases (@app/...) resolve through its tsconfig; a tree without one imports by relative paths.
const withTsConfig = existsSync(TS_CONFIG);
const { output } = await cruise(
  ['apps', 'libs'],
  { ...options, ...(withTsConfig ? { tsConfig: { fileName: TS_CONFIG } } : {}) },
  undefined,
  withTsConfig ? { tsConfig: extractTSConfig(TS_CONFIG) } : undefined,
);
const report = await format(output, { outputType: 'err' });
const cycles = topFolderCycles(output.modules);
process.stdout.write(report.output + cycles.join('\n'));
process.exitCode = report.exitCode > 0 || cycles.length > 0 ? 1 : 0;
