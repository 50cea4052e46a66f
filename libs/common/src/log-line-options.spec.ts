import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { built } from '@app/testing';

const run = promisify(execFile);

/** A process that writes `lines` through the API's destination, then ends as `ending` says. */
async function outputOf(lines: number, ending: string): Promise<string[]> {
  const script = `
    const pino = require('pino');
    const { logDestination } = require(${JSON.stringify(built('libs/common/src/log-line-options.ts'))});
    const logger = pino(logDestination('json', true));
    for (let n = 0; n < ${lines}; n++) logger.info({ n }, 'line');
    ${ending}
  `;
  const { stdout } = await run(process.execPath, ['-e', script]);
  return stdout.split('\n').filter(Boolean);
}

describe("the API's buffered log destination", () => {
  it('writes what its buffer holds when the process exits at once, as a fatal error does', async () => {
    expect(await outputOf(3, 'process.exit(1)').catch((error: { stdout: string }) => error.stdout.split('\n').filter(Boolean))).toHaveLength(3);
  });

  it('writes what its buffer holds when the process ends on its own', async () => {
    expect(await outputOf(3, '')).toHaveLength(3);
  });

  it('writes what its buffer holds within its period, though the process is then killed', async () => {
    const lines = await outputOf(2, "setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1500)").catch((error: { stdout: string }) => error.stdout.split('\n').filter(Boolean));
    expect(lines.map((line) => (JSON.parse(line) as { n: number }).n)).toEqual([0, 1]);
  });

  it('writes every line of a burst larger than its buffer, in order', async () => {
    const lines = await outputOf(500, 'process.exit(0)');
    expect(lines.map((line) => (JSON.parse(line) as { n: number }).n)).toEqual([...Array(500).keys()]);
  });
});
