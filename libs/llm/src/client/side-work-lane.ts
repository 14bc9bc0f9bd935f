import { flag } from '@echoloop/config';
import { z } from 'zod';
import { Semaphore } from './semaphore';

/** How many requests an engine is serving right now (running and waiting), or undefined when it cannot tell. */
export type EngineLoad = () => Promise<number | undefined>;

/**
 * vLLM's own count, from its Prometheus `/metrics` (`vllm:num_requests_running` + `vllm:num_requests_waiting`,
 * summed over models and engines). Undefined when the endpoint does not answer or has no such metrics.
 */
export function vllmLoad(baseUrl: string, timeoutMs = 1_000): EngineLoad {
  const url = `${baseUrl.replace(/\/v1\/?$/, '')}/metrics`;
  const counted = /^vllm:num_requests_(running|waiting)(\{[^}]*\})? ([0-9.eE+-]+)$/;
  return async () => {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) return undefined;
      let seen = false;
      let load = 0;
      for (const line of (await response.text()).split('\n')) {
        const match = counted.exec(line);
        if (!match) continue;
        seen = true;
        load += Number(match[3]);
      }
      return seen ? load : undefined;
    } catch {
      return undefined;
    }
  };
}

export interface SideWorkLaneOptions {
  /** This process's side requests on one engine at once. */
  concurrency: number;
  /** Longest a side request waits for the engine to be free of others' work; then it goes anyway (no starvation). */
  maxWaitMs: number;
  /** How often the engine's load is read while a side request waits. */
  pollMs: number;
}

/** Waiting time and outcome of one admission, for the app's metrics. */
export interface SideWorkAdmission {
  waitedMs: number;
  /** It waited maxWaitMs and went while the engine was still busy. */
  forced: boolean;
}

export interface SideWorkLaneHooks {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  onAdmit?: (admission: SideWorkAdmission) => void;
  /** Side work aborted for a reply (it runs again). */
  onPreempt?: () => void;
}

/** The side-work settings every app that calls a shared engine reads (see SideWorkLane). */
export const sideWorkEnv = {
  /** Off where side work has an engine of its own: there is then no user to make way for. */
  MODEL_SIDE_WORK_YIELDS: flag(true),
  MODEL_SIDE_WORK_CONCURRENCY: z.coerce.number().int().positive().default(1),
  MODEL_SIDE_WORK_MAX_WAIT_MS: z.coerce.number().int().positive().default(30_000),
  MODEL_SIDE_WORK_POLL_MS: z.coerce.number().int().positive().default(250),
};
export type SideWorkEnv = z.infer<z.ZodObject<typeof sideWorkEnv>>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Why a lane aborts the side work it runs: a user's reply came, so it steps aside and runs again later. */
export const PREEMPTED = new Error('side work preempted: a reply is on the engine');

/**
 * Makes background model work (judges, persona extraction, the director, summaries) give way to
 * users' replies on a shared engine. vLLM's priorities order its queue, but a reply that arrives while background
 * generations run shares every step with them: on a small CPU engine its first token then comes seconds late.
 * So a side request starts only when the engine serves nothing but this lane's own requests (at most
 * `concurrency` at once), and while it runs the lane keeps watching: when someone else's request arrives, the side
 * request is aborted and runs again once the engine is free. After `maxWaitMs` in all it goes anyway and is no
 * longer preempted, so background work is never starved. An engine whose load cannot be read counts as free: the
 * request itself then meets whatever is wrong with it. The engine's counts cannot tell a reply from another
 * process's background request, so lanes of different processes also wait for each other: background work on one
 * engine runs mostly one request at a time.
 */
export class SideWorkLane {
  private readonly slots: Semaphore;
  private inFlight = 0;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly load: EngineLoad,
    private readonly options: SideWorkLaneOptions,
    private readonly hooks: SideWorkLaneHooks = {},
  ) {
    this.slots = new Semaphore(options.concurrency);
    this.now = hooks.now ?? Date.now;
    this.sleep = hooks.sleep ?? sleep;
  }

  /**
   * Runs `work` once the engine is free of others' requests, and again if a reply preempts it (its `signal` is
   * then aborted with PREEMPTED; what it did so far is thrown away). `weight` is how many engine requests it makes.
   */
  run<T>(work: (signal: AbortSignal) => Promise<T>, weight = 1): Promise<T> {
    return this.slots.run(async () => {
      const started = this.now();
      for (;;) {
        const forced = await this.admit(started);
        const preempt = new AbortController();
        this.inFlight += weight;
        const watching = { on: !forced };
        if (watching.on) void this.watch(preempt, watching);
        try {
          return await work(preempt.signal);
        } catch (error) {
          if (preempt.signal.reason !== PREEMPTED) throw error;
          this.hooks.onPreempt?.();
        } finally {
          watching.on = false;
          this.inFlight -= weight;
        }
      }
    });
  }

  /** Waits for admission and holds it, never preempted, until the returned function is called (streamed work). */
  async enter(weight = 1): Promise<() => void> {
    let leave!: () => void;
    const left = new Promise<void>((resolve) => (leave = resolve));
    const admitted = new Promise<void>((entered) => {
      void this.slots.run(async () => {
        await this.admit(this.now(), this.options.maxWaitMs);
        this.inFlight += weight;
        entered();
        await left;
        this.inFlight -= weight;
      });
    });
    await admitted;
    return leave;
  }

  /** Waits until the engine serves no one else, or the wait since `started` is over; says whether it was. */
  private async admit(started: number, maxWaitMs = this.options.maxWaitMs): Promise<boolean> {
    for (;;) {
      const load = await this.load();
      const waitedMs = this.now() - started;
      if (load === undefined || load <= this.inFlight) {
        this.hooks.onAdmit?.({ waitedMs, forced: false });
        return false;
      }
      if (waitedMs >= maxWaitMs) {
        this.hooks.onAdmit?.({ waitedMs, forced: true });
        return true;
      }
      await this.sleep(this.options.pollMs);
    }
  }

  /** While `watching.on`: aborts the running side work as soon as the engine serves someone else. */
  private async watch(preempt: AbortController, watching: { on: boolean }): Promise<void> {
    while (watching.on) {
      await this.sleep(this.options.pollMs);
      if (!watching.on) return;
      const load = await this.load();
      if (watching.on && load !== undefined && load > this.inFlight) {
        preempt.abort(PREEMPTED);
        return;
      }
    }
  }
}

/** One lane per engine (base URL) in a process, so that all its callers of that engine share the lane's limit. */
export class SideWorkLanes {
  private readonly lanes = new Map<string, SideWorkLane>();

  constructor(
    private readonly env: SideWorkEnv,
    private readonly hooks: Pick<SideWorkLaneHooks, 'onAdmit' | 'onPreempt'> = {},
    private readonly loadOf: (baseUrl: string) => EngineLoad = vllmLoad,
  ) {}

  /** The lane of the engine at `baseUrl`; undefined when side work does not yield (MODEL_SIDE_WORK_YIELDS=false). */
  for(baseUrl: string): SideWorkLane | undefined {
    if (!this.env.MODEL_SIDE_WORK_YIELDS) return undefined;
    let lane = this.lanes.get(baseUrl);
    if (!lane) {
      lane = new SideWorkLane(
        this.loadOf(baseUrl),
        {
          concurrency: this.env.MODEL_SIDE_WORK_CONCURRENCY,
          maxWaitMs: this.env.MODEL_SIDE_WORK_MAX_WAIT_MS,
          pollMs: this.env.MODEL_SIDE_WORK_POLL_MS,
        },
        this.hooks,
      );
      this.lanes.set(baseUrl, lane);
    }
    return lane;
  }
}
