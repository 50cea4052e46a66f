/**
 * Memory of the processes a benchmark runs, read while they serve its load: the resident set
 * from outside (`/proc/<pid>/status`), so that reading it costs the process nothing, and the V8
 * heap in use from what each process exposes (the service's and the worker's Prometheus
 * `/metrics`, the floor's and the baseline's bench-only route). Both heap figures are
 * `process.memoryUsage().heapUsed` at the moment of the read.
 */
import { readFileSync } from 'node:fs';

/** The floor's and the baseline's route answering `process.memoryUsage()`; the service has no such route. */
export const BENCH_MEMORY_PATH = 'bench/memory';

export interface MemorySample {
  /** Epoch milliseconds of the read. */
  at: number;
  rssBytes: number;
  /** Undefined when the process did not answer the heap read in time. */
  heapUsedBytes: number | undefined;
}

/** Reads the heap in use of one process; undefined when it did not answer in time. */
export type HeapReader = () => Promise<number | undefined>;

export interface MemoryProbe {
  pid: number;
  heapUsed: HeapReader;
}

/** A process busy serving a load answers a read late; a read this late is dropped rather than waited for. */
const HEAP_READ_TIMEOUT_MS = 2_000;

export function residentSetBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    // The process has ended.
    return undefined;
  }
}

/** The Node flags a process was started with (the words before its script), from `/proc/<pid>/cmdline`. */
export function nodeFlagsOf(pid: number): string[] {
  const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1);
  const script = words.findIndex((word) => !word.startsWith('--'));
  return script === -1 ? words : words.slice(0, script);
}

async function fetchText(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(HEAP_READ_TIMEOUT_MS) });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

/** prom-client's default `nodejs_heap_size_used_bytes`, from a Prometheus `/metrics` address. */
export const prometheusHeapUsed =
  (metricsUrl: string): HeapReader =>
  async () => {
    const text = await fetchText(metricsUrl);
    const match = text === undefined ? null : /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
    return match ? Number(match[1]) : undefined;
  };

/** The bench-only memory route of the floor or the baseline at `origin`. */
export const benchRouteHeapUsed =
  (origin: string): HeapReader =>
  async () => {
    const text = await fetchText(`${origin}/${BENCH_MEMORY_PATH}`);
    return text === undefined ? undefined : (JSON.parse(text) as NodeJS.MemoryUsage).heapUsed;
  };

/**
 * Reads each probe every `intervalMs` until stopped. The resident set is read at the tick; the
 * heap when the process answers. A probe whose heap read is still pending skips the tick, so that
 * a slow process is not sent a queue of reads.
 */
export class MemorySampler {
  private readonly samples: MemorySample[][];
  private readonly reading: Array<Promise<void> | undefined>;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly probes: readonly MemoryProbe[],
    private readonly intervalMs: number,
  ) {
    this.samples = probes.map(() => []);
    this.reading = probes.map(() => undefined);
  }

  start(): this {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    return this;
  }

  /** Stops, waits for the reads under way, and answers the samples of each probe in the order given. */
  async stop(): Promise<MemorySample[][]> {
    clearInterval(this.timer);
    await Promise.all(this.reading.flatMap((read) => (read ? [read] : [])));
    return this.samples;
  }

  private tick(): void {
    this.probes.forEach((probe, index) => {
      if (this.reading[index] !== undefined) return;
      const at = Date.now();
      const rssBytes = residentSetBytes(probe.pid);
      if (rssBytes === undefined) return;
      this.reading[index] = probe.heapUsed().then((heapUsedBytes) => {
        this.samples[index].push({ at, rssBytes, heapUsedBytes });
        this.reading[index] = undefined;
      });
    });
  }
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export interface MemorySummary {
  rssPeak: number;
  rssMedian: number;
  heapPeak: number;
  heapMedian: number;
  /** The lowest heap read: the closest of the reads to what survives the process's own collections. */
  heapMin: number;
  samples: number;
}

export function summarizeMemory(samples: readonly MemorySample[]): MemorySummary | undefined {
  if (samples.length === 0) return undefined;
  const rss = samples.map((sample) => sample.rssBytes);
  const heap = samples.flatMap((sample) => (sample.heapUsedBytes === undefined ? [] : [sample.heapUsedBytes]));
  return {
    rssPeak: Math.max(...rss),
    rssMedian: median(rss),
    heapPeak: heap.length > 0 ? Math.max(...heap) : Number.NaN,
    heapMedian: median(heap),
    heapMin: heap.length > 0 ? Math.min(...heap) : Number.NaN,
    samples: samples.length,
  };
}

/** Mebibytes, whole. */
export const mib = (bytes: number): string => (Number.isNaN(bytes) ? '?' : (bytes / 2 ** 20).toFixed(0));
