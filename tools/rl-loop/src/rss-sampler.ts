import { every } from '@echoloop/platform';
import { readdirSync, readFileSync } from 'node:fs';

export const RSS_GROUPS = ['train', 'model', 'ray', 'orchestrator'] as const;
export type RssGroup = (typeof RSS_GROUPS)[number];
export type RssMiB = Record<RssGroup | 'total', number>;

const RAY = /ray::|raylet|gcs_server|ray-dashboard|site-packages\/ray\//;

interface Proc {
  pid: number;
  ppid: number;
  cmdline: string;
  rssKb: number;
}

function processes(): Proc[] {
  const found: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      found.push({
        pid: Number(entry),
        ppid: Number(/PPid:\s+(\d+)/.exec(status)?.[1] ?? 0),
        cmdline,
        rssKb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0),
      });
    } catch {
      // The process ended between listing and reading.
    }
  }
  return found;
}

/**
 * Which group a process counts in. The model engine (vLLM) and the Ray head are shared, so they count whole; the training
 * job and the orchestrator only when they are this run's (its work dir, our child), not a concurrent test's.
 */
function groupOf(p: Proc, workDir: string): RssGroup | undefined {
  if (p.cmdline.includes('echoloop_train')) return p.cmdline.includes(workDir) ? 'train' : undefined;
  // vLLM: the API server and its engine-core and worker processes.
  if (p.cmdline.includes('vllm.entrypoints') || p.cmdline.startsWith('VLLM::')) return 'model';
  if (p.ppid === process.pid && p.cmdline.includes('apps/rl-orchestrator')) return 'orchestrator';
  if (RAY.test(p.cmdline)) return 'ray';
  return undefined;
}

export function sampleRss(workDir: string): RssMiB {
  const kb: RssMiB = { train: 0, model: 0, ray: 0, orchestrator: 0, total: 0 };
  for (const p of processes()) {
    const group = groupOf(p, workDir);
    if (!group) continue;
    kb[group] += p.rssKb;
    kb.total += p.rssKb;
  }
  for (const key of Object.keys(kb) as (keyof RssMiB)[]) kb[key] = Math.round(kb[key] / 1024);
  return kb;
}

/** Samples every `intervalMs` and keeps the peaks (each group's own, and the total's) of every open scope. */
export class RssSampler {
  private readonly scopes = new Map<string, RssMiB>();
  private stopSampling = (): void => undefined;

  constructor(
    private readonly workDir: string,
    private readonly intervalMs = 500,
  ) {}

  start(): void {
    this.stopSampling = every(this.intervalMs, () => this.sample());
  }

  stop(): void {
    this.stopSampling();
  }

  open(scope: string): void {
    this.scopes.set(scope, { train: 0, model: 0, ray: 0, orchestrator: 0, total: 0 });
    this.sample();
  }

  /** The scope's peaks since it was opened. */
  close(scope: string): RssMiB {
    this.sample();
    const peak = this.scopes.get(scope) ?? sampleRss(this.workDir);
    this.scopes.delete(scope);
    return peak;
  }

  private sample(): void {
    if (this.scopes.size === 0) return;
    const now = sampleRss(this.workDir);
    for (const peak of this.scopes.values())
      for (const key of Object.keys(now) as (keyof RssMiB)[]) peak[key] = Math.max(peak[key], now[key]);
  }
}
