import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { promisify } from 'node:util';
import { CLIENT_TYPES_COMMAND, CLIENT_TYPES_FILE } from '../scripts/client-types';
import { createTestApp, FROM_SOURCE, PROJECT_ROOT, TestApp } from './support';

/** The first line where two texts differ, to show what changed without printing 8,000 lines. */
function firstDifference(expected: string, actual: string): string {
  const expectedLines = expected.split('\n');
  const actualLines = actual.split('\n');
  const line = expectedLines.findIndex((text, index) => text !== actualLines[index]);
  const at = line === -1 ? expectedLines.length : line;
  return `line ${at + 1}: generated ${JSON.stringify(expectedLines[at])}, committed ${JSON.stringify(actualLines[at])}`;
}

/**
 * The SDK's committed types are those of the document the API serves now. The generation runs
 * in a Node process of its own (scripts/client-types.ts --print), because openapi-typescript's
 * ES module dependencies cannot load under Jest.
 */
describe('SDK types', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('are generated from the served /openapi.json', async () => {
    const { stdout: generated } = await promisify(execFile)(
      process.execPath,
      [...FROM_SOURCE, 'scripts/client-types.ts', '--print', t.url],
      { cwd: PROJECT_ROOT, maxBuffer: 64 * 1024 * 1024 },
    );
    const committed = readFileSync(CLIENT_TYPES_FILE, 'utf8');
    if (generated !== committed) {
      throw new Error(
        `${relative(PROJECT_ROOT, CLIENT_TYPES_FILE)} is stale: run \`${CLIENT_TYPES_COMMAND}\` and commit the result ` +
          `(first difference at ${firstDifference(generated, committed)}).`,
      );
    }
  }, 60_000);
});
