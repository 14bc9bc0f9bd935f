import { say, seconds } from './output';
import { type RssMiB, RssSampler } from './rss-sampler';

export interface StageTiming {
  stage: string;
  wallSeconds: number;
  peakRssMiB: RssMiB;
}

/**
 * Runs the loop's stages one after the other, each with its wall time and its peak RSS. A stage may also split
 * itself into phases (the refresh's statuses): each phase gets its own row beside the stage's.
 */
export class StageRunner {
  readonly stages: StageTiming[] = [];
  readonly phases: StageTiming[] = [];
  private readonly sampler: RssSampler;
  private openPhase: { name: string; startedAt: number } | undefined;

  constructor(workDir: string) {
    this.sampler = new RssSampler(workDir);
    this.sampler.start();
  }

  async run<T>(stage: string, work: () => Promise<T>): Promise<T> {
    const startedAt = Date.now();
    this.sampler.open(stage);
    say(stage, 'start');
    try {
      return await work();
    } finally {
      this.phase(undefined);
      const wallSeconds = seconds(Date.now() - startedAt);
      this.stages.push({ stage, wallSeconds, peakRssMiB: this.sampler.close(stage) });
      say(stage, `done in ${wallSeconds} s`);
    }
  }

  /** Closes the open phase and opens `name` (none: just close). */
  phase(name: string | undefined): void {
    if (this.openPhase) {
      const { name: closing, startedAt } = this.openPhase;
      const scope = `phase:${closing}`;
      this.phases.push({
        stage: closing,
        wallSeconds: seconds(Date.now() - startedAt),
        peakRssMiB: this.sampler.close(scope),
      });
      this.openPhase = undefined;
    }
    if (name) {
      this.sampler.open(`phase:${name}`);
      this.openPhase = { name, startedAt: Date.now() };
    }
  }

  stop(): void {
    this.sampler.stop();
  }
}
