import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const mean = sorted.reduce((sum, v) => sum + v, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    p50: round(at(0.5)),
    p95: round(at(0.95)),
    p99: round(at(0.99)),
    max: round(at(1)),
    mean: round(mean),
  };
}

export const round = (value: number): number => Math.round(value * 100) / 100;

/** CPU seconds (user + system) a process has used so far, from /proc. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}

/** Resident set size of a process in MiB, from /proc. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return round(kb / 1024);
}

/** The process and its live descendants (a proxy's workers), from /proc. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while listing.
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] ?? -1) ?? []));
  return tree;
}

const alive = <T>(read: () => T, fallback: T): T => {
  try {
    return read();
  } catch {
    return fallback;
  }
};

/** CPU seconds used so far by a process and its live descendants. */
export const treeCpuSeconds = (pid: number): number =>
  processTree(pid).reduce((total, p) => total + alive(() => cpuSeconds(p), 0), 0);

/**
 * Waits, at most `maxMs`, until a process tree is quiet again (under 5% of a core over 200 ms): a target's work
 * after its streams end (logging, publishing) is then counted as its own, and does not slow the next target down.
 */
export async function quietAgain(pid: number, maxMs = 10_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let last = treeCpuSeconds(pid);
  while (Date.now() < deadline) {
    await sleep(200);
    const now = treeCpuSeconds(pid);
    if (now - last < 0.01) return;
    last = now;
  }
}

/** CPU seconds (user + nice + system + irq) the whole machine has used so far, over all cores, from /proc. */
export function machineCpuSeconds(): number {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/) ?? [];
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = fields.map(Number);
  return (user + nice + system + irq + softirq) / 100;
}

/** Resident set size of a process and its live descendants in MiB. */
export const treeRssMiB = (pid: number): number =>
  round(processTree(pid).reduce((total, p) => total + alive(() => rssMiB(p), 0), 0));
