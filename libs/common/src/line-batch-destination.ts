import type { DestinationStream } from 'pino';

/** Where a batch goes: a synchronous SonicBoom (pino.destination) that writes what it is given at once. */
export interface BatchSink {
  write(chunk: string): boolean;
  flushSync(): void;
}

/**
 * Log lines held in memory and handed to a synchronous file destination a batch at a time: once
 * they hold `batchLength` characters, every `flushEveryMs`, and when asked (pino's `flush`, and
 * `flushSync` as the process exits). SonicBoom's own buffer (`minLength`) measures the UTF-8
 * length of all it holds on every write, a cost that grows with the buffer: about 2% of a read by
 * id. Here a line costs a push, and each batch is measured once, by the write that sends it.
 */
export class LineBatchDestination implements DestinationStream {
  private lines: string[] = [];
  private held = 0;

  constructor(
    private readonly sink: BatchSink,
    private readonly batchLength: number,
    flushEveryMs: number,
  ) {
    // The timer holds the destination weakly: a destination is dropped with its logger (the tests build many).
    const destination = new WeakRef(this);
    const timer = setInterval(() => {
      const held = destination.deref();
      if (held) held.send();
      else clearInterval(timer);
    }, flushEveryMs);
    timer.unref();
  }

  write(line: string): void {
    this.lines.push(line);
    this.held += line.length;
    if (this.held >= this.batchLength) this.send();
  }

  /** pino's `logger.flush(cb)`: the sink writes synchronously, so the lines are out when `send` returns. */
  flush(done?: (error?: Error) => void): void {
    try {
      this.send();
    } catch (error) {
      done?.(error as Error);
      return;
    }
    done?.();
  }

  /** Sends the lines held now and has the sink finish writing them before it returns. */
  flushSync(): void {
    this.send();
    this.sink.flushSync();
  }

  private send(): void {
    if (this.lines.length === 0) return;
    const batch = this.lines.length === 1 ? this.lines[0] : this.lines.join('');
    this.lines = [];
    this.held = 0;
    this.sink.write(batch);
  }
}
