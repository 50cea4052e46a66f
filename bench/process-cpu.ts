import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** /proc reports CPU time in clock ticks (USER_HZ, 100 a second on every common Linux). */
const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const MICROSECONDS_PER_TICK = 1_000_000 / CLOCK_TICKS_PER_SECOND;

/** A process's CPU time so far, in microseconds: its main thread (where JavaScript runs) and all its threads. */
export interface CpuTime {
  main: number;
  all: number;
}

/** utime + stime of a /proc stat line (fields 14 and 15; the command name before them may hold spaces). */
function ticksOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** The CPU time of `pid` from /proc, which costs the process nothing; undefined once it has ended. */
export function cpuTimeOf(pid: number): CpuTime | undefined {
  try {
    return {
      main: ticksOf(`/proc/${pid}/task/${pid}/stat`) * MICROSECONDS_PER_TICK,
      all: ticksOf(`/proc/${pid}/stat`) * MICROSECONDS_PER_TICK,
    };
  } catch {
    return undefined;
  }
}

/** CPU microseconds per request between two reads, or undefined when either is missing. */
export function cpuPerRequest(before: CpuTime | undefined, after: CpuTime | undefined, requests: number): CpuTime | undefined {
  if (!before || !after || requests === 0) return undefined;
  return { main: (after.main - before.main) / requests, all: (after.all - before.all) / requests };
}
