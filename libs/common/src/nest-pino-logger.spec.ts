import { Writable } from 'node:stream';
import pino from 'pino';
import { NestPinoLogger } from './nest-pino-logger';

function capture(bindings?: () => object | undefined): { logger: NestPinoLogger; lines: () => Record<string, unknown>[] } {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  const root = pino({ level: 'debug', base: undefined, timestamp: false }, sink);
  return {
    logger: new NestPinoLogger(root, bindings),
    lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('NestPinoLogger', () => {
  it("takes the last extra argument as the context, as Nest's Logger passes it", () => {
    const { logger, lines } = capture();
    logger.log('Listening on port 3000', 'Bootstrap');
    logger.warn('plain');
    expect(lines()).toEqual([
      { level: 30, context: 'Bootstrap', msg: 'Listening on port 3000' },
      { level: 40, msg: 'plain' },
    ]);
  });

  it("writes Nest's lines per module, controller and route at debug, and its other start-up lines at info", () => {
    const { logger, lines } = capture();
    logger.log('Mapped {/v2/resources, POST} route', 'RouterExplorer');
    logger.log('ResourcesController {/v2/resources}:', 'RoutesResolver');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Nest application successfully started', 'NestApplication');
    expect(lines().map((line) => [line.context, line.level])).toEqual([
      ['RouterExplorer', 20],
      ['RoutesResolver', 20],
      ['InstanceLoader', 20],
      ['NestApplication', 30],
    ]);
  });

  it('merges an object first argument into the line and writes an Error as err', () => {
    const { logger, lines } = capture();
    logger.error({ err: new Error('boom'), requestId: 'req_1' }, 'Could not store', 'Idempotency');
    logger.error(new Error('bare'), 'Worker');
    const [merged, bare] = lines();
    expect(merged).toMatchObject({ level: 50, requestId: 'req_1', context: 'Idempotency', msg: 'Could not store', err: { message: 'boom' } });
    expect(bare).toMatchObject({ level: 50, context: 'Worker', err: { message: 'bare', type: 'Error' } });
  });

  it("keeps the stack that Nest's exception handlers pass after the message", () => {
    const { logger, lines } = capture();
    logger.error('Unhandled', 'Error: Unhandled\n    at somewhere (file.js:1:1)', 'ExceptionsHandler');
    expect(lines()[0]).toMatchObject({ context: 'ExceptionsHandler', err: { message: 'Unhandled', stack: 'Error: Unhandled\n    at somewhere (file.js:1:1)' } });
  });

  it('adds the current bindings to every line and writes nothing below the level', () => {
    const { logger, lines } = capture(() => ({ requestId: 'req_42' }));
    logger.verbose('below the level');
    logger.debug('kept', 'Probe');
    expect(lines()).toEqual([{ level: 20, requestId: 'req_42', context: 'Probe', msg: 'kept' }]);
  });
});
