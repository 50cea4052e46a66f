import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';

/**
 * The library, and the example of its README, compile with the browser settings of
 * tsconfig.browser.json: the DOM and ES2022 only, no Node types, so a Node-only API or a
 * `node:` import anywhere on the request path fails here.
 */
const LIBRARY_ROOT = join(__dirname, '..');
const BROWSER_TSCONFIG = join(LIBRARY_ROOT, 'tsconfig.browser.json');
const README = join(LIBRARY_ROOT, 'README.md');
/** Where the example is compiled from, as if it were a file of the library's own; it exists only in memory. */
const EXAMPLE_FILE = join(LIBRARY_ROOT, 'readme-example.ts');

function browserSettings(): ts.ParsedCommandLine {
  const { config, error } = ts.readConfigFile(BROWSER_TSCONFIG, (path) => ts.sys.readFile(path));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config, ts.sys, dirname(BROWSER_TSCONFIG));
}

/** The first ```ts block of the README. */
function readmeExample(): string {
  const block = /```ts\n([\s\S]*?)```/.exec(readFileSync(README, 'utf8'));
  if (!block) throw new Error(`${README} has no \`\`\`ts example`);
  return block[1];
}

interface Problem {
  file: string | undefined;
  text: string;
}

/** One program for the library and the example, which imports it as `@rms/client`. */
function compileProblems(settings: ts.ParsedCommandLine, example: string): Problem[] {
  const options = { ...settings.options, baseUrl: LIBRARY_ROOT, paths: { '@rms/client': ['src'] } };
  const host = ts.createCompilerHost(options);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.fileExists = (path) => path === EXAMPLE_FILE || fileExists(path);
  host.readFile = (path) => (path === EXAMPLE_FILE ? example : readFile(path));
  const program = ts.createProgram({ rootNames: [...settings.fileNames, EXAMPLE_FILE], options, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const line = diagnostic.file ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1 : 0;
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    return { file: diagnostic.file?.fileName, text: diagnostic.file ? `${diagnostic.file.fileName}:${line}: ${text}` : text };
  });
}

describe('browser compatibility', () => {
  const settings = browserSettings();
  let problems: Problem[];

  beforeAll(() => {
    problems = compileProblems(settings, readmeExample());
  }, 60_000);

  it('compiles the library without Node types', () => {
    expect(settings.fileNames.length).toBeGreaterThan(10);
    expect(settings.fileNames.some((file) => file.endsWith('.spec.ts'))).toBe(false);
    expect(problems.filter((problem) => problem.file !== EXAMPLE_FILE).map((problem) => problem.text)).toEqual([]);
  });

  it('compiles the README example, importing @rms/client', () => {
    expect(problems.filter((problem) => problem.file === EXAMPLE_FILE).map((problem) => problem.text)).toEqual([]);
  });
});
