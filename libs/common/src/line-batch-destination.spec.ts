import { BatchSink, LineBatchDestination } from './line-batch-destination';

/** A sink that keeps what it is given, and how often it was told to finish writing. */
function recordingSink(): BatchSink & { batches: string[]; flushes: number } {
  const sink = {
    batches: [] as string[],
    flushes: 0,
    write(chunk: string): boolean {
      sink.batches.push(chunk);
      return true;
    },
    flushSync(): void {
      sink.flushes += 1;
    },
  };
  return sink;
}

describe('LineBatchDestination', () => {
  afterEach(() => jest.useRealTimers());

  it('holds lines until they reach the batch length, then sends them as one batch, in order', () => {
    const sink = recordingSink();
    const destination = new LineBatchDestination(sink, 10, 60_000);
    destination.write('abcd\n');
    destination.write('efgh');
    expect(sink.batches).toEqual([]);
    destination.write('ij\n');
    expect(sink.batches).toEqual(['abcd\nefghij\n']);
    destination.write('k\n');
    expect(sink.batches).toEqual(['abcd\nefghij\n']);
  });

  it('sends what it holds on its period, and nothing when it holds nothing', () => {
    jest.useFakeTimers();
    const sink = recordingSink();
    const destination = new LineBatchDestination(sink, 4096, 500);
    destination.write('one\n');
    jest.advanceTimersByTime(499);
    expect(sink.batches).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sink.batches).toEqual(['one\n']);
    jest.advanceTimersByTime(1_000);
    expect(sink.batches).toEqual(['one\n']);
  });

  it("answers pino's flush once the lines are sent, and flushSync once the sink has finished", () => {
    const sink = recordingSink();
    const destination = new LineBatchDestination(sink, 4096, 60_000);
    destination.write('a\n');
    const done = jest.fn();
    destination.flush(done);
    expect(sink.batches).toEqual(['a\n']);
    expect(done).toHaveBeenCalledWith();
    destination.write('b\n');
    destination.flushSync();
    expect(sink.batches).toEqual(['a\n', 'b\n']);
    expect(sink.flushes).toBe(1);
  });

  it("hands pino's flush the sink's failure", () => {
    const failure = new Error('EBADF');
    const sink = { ...recordingSink(), write: (): boolean => { throw failure; } };
    const destination = new LineBatchDestination(sink, 4096, 60_000);
    destination.write('a\n');
    const done = jest.fn();
    destination.flush(done);
    expect(done).toHaveBeenCalledWith(failure);
  });
});
