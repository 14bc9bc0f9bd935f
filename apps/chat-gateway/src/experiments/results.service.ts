import {
  EXPERIMENT_METRICS,
  guardrailBreached,
  meanConfidenceInterval,
  type Moments,
  sampleRatioMismatch,
  summarize,
  type Summary,
} from '@echoloop/experiments';
import type { ExperimentEntity } from '@echoloop/persistence';
import { PeriodicWorker } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import {
  ALPHA,
  compare,
  type Comparison,
  cupedOf,
  holmAcrossMetrics,
  noComparison,
  orNull,
} from './comparisons';
import type { Decision } from './decision';
import { ExperimentsRepository } from './experiments.repository';
import { ExperimentsService } from './experiments.service';

/**
 * Experiment results from the incrementally kept per-arm moments and per-user values (never a scan of turns): per
 * arm and metric the users, turns, mean and confidence interval; against control a Welch test, the same on CUPED
 * adjusted values where users have a pre-period, an always-valid sequential p-value and interval (safe to peek),
 * and the Bayesian probability to beat control, with Holm's correction across metrics and arms; a sample-ratio
 * mismatch check; guardrails, which stop a running experiment when a treatment is significantly worse on them; and
 * the decision of the primary metric's sequential test.
 */
@Injectable()
export class ResultsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly reviews: PeriodicWorker;

  constructor(
    private readonly repository: ExperimentsRepository,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    private readonly experiments: ExperimentsService,
    private readonly logger: PinoLogger,
  ) {
    this.reviews = new PeriodicWorker(() => this.act(), logger, {
      what: 'experiment review',
      everyMs: env.EXPERIMENT_GUARDRAIL_CHECK_MS,
    });
  }

  onApplicationBootstrap(): void {
    this.reviews.start({ now: false });
  }

  onApplicationShutdown(): Promise<void> {
    return this.reviews.stop();
  }

  async results(id: string) {
    const experiment = await this.experiments.get(id);
    const control = experiment.arms.find((a) => a.control);
    const assigned = await this.repository.assignmentsByArm(id);
    const usersByArm = new Map(assigned.map((r) => [r.arm_id, r.users]));
    const rows = await this.repository.armMetrics(id);
    const summaryOf = (armId: string, metric: string): { summary: Summary; turns: number } | undefined => {
      const row = rows.find((r) => r.armId === armId && r.metric === metric);
      if (!row) return undefined;
      const moments: Moments = { n: row.users, sum: row.sum, sumSquares: row.sumSquares };
      return { summary: summarize(moments), turns: row.turns };
    };
    const covariates = await this.repository.covariateMoments(id);
    const sequential: Record<string, number> = { ...experiment.sequentialPValues };
    const armIds = experiment.arms.map((a) => a.id);
    const metrics = EXPERIMENT_METRICS.map((metric) => {
      const { name } = metric;
      const guardrail = 'guardrail' in metric ? metric.guardrail : undefined;
      const base = control ? summaryOf(control.id, name) : undefined;
      const cuped = cupedOf(armIds, name, covariates);
      return {
        metric: name,
        guardrail: guardrail ?? null,
        arms: experiment.arms.map((arm) => {
          const s = summaryOf(arm.id, name);
          return {
            armId: arm.id,
            users: s?.summary.n ?? 0,
            turns: s?.turns ?? 0,
            mean: s?.summary.mean ?? null,
            ci: s ? orNull(() => meanConfidenceInterval(s.summary)) : null,
          };
        }),
        comparisons: experiment.arms.flatMap((arm): Comparison[] => {
          const s = summaryOf(arm.id, name);
          if (arm.control) return [];
          if (!s || !base || !control) return [noComparison(arm.id)];
          return [compare(name, control.id, arm.id, base.summary, s.summary, cuped, sequential)];
        }),
      };
    });
    const primary = this.env.EXPERIMENT_PRIMARY_METRIC;
    holmAcrossMetrics(
      metrics,
      (name) => name === primary || metrics.some((m) => m.metric === name && m.guardrail),
    );
    const guardrails = metrics.flatMap(({ metric, guardrail, comparisons }) =>
      guardrail
        ? comparisons.flatMap((c) =>
            c.sequential?.adjustedPValue != null
              ? [
                  {
                    metric,
                    armId: c.armId,
                    breached: guardrailBreached(
                      { pValue: c.sequential.adjustedPValue, difference: c.sequential.difference },
                      guardrail,
                      ALPHA,
                    ),
                  },
                ]
              : [],
          )
        : [],
    );
    await this.repository.saveSequentialPValues(id, sequential);
    const decision = this.decide(experiment, metrics);
    const observed = experiment.arms.map((a) => usersByArm.get(a.id) ?? 0);
    const srm = sampleRatioMismatch(
      observed,
      experiment.arms.map((a) => a.weight),
    );
    return {
      experiment: view(experiment),
      arms: experiment.arms.map((a, i) => ({ ...a, users: observed[i] ?? 0 })),
      srm: { ...srm, alert: srm.mismatch },
      metrics,
      guardrails,
      decision,
    };
  }

  /**
   * The primary metric's always-valid test (the running minimum of its sequential p-value, safe however often it
   * is read) between control and the one treatment arm, once both have the users its normal approximation needs.
   */
  private decide(experiment: ExperimentEntity, metrics: ResultMetric[]): Decision {
    const metric = this.env.EXPERIMENT_PRIMARY_METRIC;
    const [treatment, ...others] = experiment.arms.filter((a) => !a.control);
    const none = (reason: string): Decision => ({ metric, armId: null, verdict: null, reason });
    if (!treatment || others.length > 0 || !experiment.arms.some((a) => a.control))
      return none('decisions need a control and exactly one treatment arm');
    const armId = treatment.id;
    const result = metrics.find((m) => m.metric === metric);
    const users = Math.min(...(result?.arms.map((a) => a.users) ?? [0]));
    const least = this.env.EXPERIMENT_DECISION_MIN_USERS;
    if (users < least) return { ...none(`${users} of ${least} users in the smaller arm`), armId };
    const test = result?.comparisons.find((c) => c.armId === armId)?.sequential;
    if (!test || test.adjustedPValue === null || test.adjustedPValue > ALPHA)
      return {
        ...none(
          `${metric} not conclusive yet (always-valid p ${fixed(test?.adjustedPValue)}, Holm-adjusted)`,
        ),
        armId,
      };
    const higher = test.ci[0] > 0;
    const where = `(always-valid p ${fixed(test.adjustedPValue)} Holm-adjusted, CI [${fixed(test.ci[0])}, ${fixed(test.ci[1])}], ${users}+ users per arm)`;
    return {
      metric,
      armId,
      verdict: higher ? 'promote' : 'stop',
      reason: `${metric} ${higher ? 'higher' : 'lower'} on arm ${armId} than control ${where}`,
    };
  }

  /**
   * Reviews the running experiment: a guardrail significantly worse on a treatment stops it; otherwise a conclusive
   * primary metric promotes the winner or stops the loser (or, in `recommend` mode, is recorded in the audit log).
   * The rl-orchestrator's reconciler then unloads a stopped candidate's adapter and keeps a promoted one served.
   */
  async review(): Promise<void> {
    await this.reviews.wake();
  }

  private async act(): Promise<void> {
    const running = await this.repository.findRunning();
    if (!running) return;
    const { guardrails, decision } = await this.results(running.id);
    const breached = guardrails.find((g) => g.breached);
    if (breached) {
      await this.experiments.stop(
        null,
        running.id,
        `guardrail: ${breached.metric} worse on arm ${breached.armId}`,
      );
      this.logger.warn({ experimentId: running.id, ...breached }, 'experiment stopped by a guardrail');
      return;
    }
    const mode = this.env.EXPERIMENT_DECISIONS;
    if (!decision.verdict || !decision.armId || mode === 'off') return;
    if (mode === 'recommend') {
      await this.experiments.recommend(running.id, decision);
      return;
    }
    if (decision.verdict === 'promote')
      await this.experiments.promote(null, running.id, decision.armId, decision.reason);
    else await this.experiments.stop(null, running.id, `decision: ${decision.reason}`);
    this.logger.info({ experimentId: running.id, ...decision }, 'experiment decided by its primary metric');
  }
}

type ResultMetric = {
  metric: string;
  arms: { armId: string; users: number }[];
  comparisons: Pick<Comparison, 'armId' | 'sequential'>[];
};

const fixed = (value: number | null | undefined) =>
  value === null || value === undefined ? 'n/a' : value.toPrecision(3);

export function view(e: ExperimentEntity) {
  return {
    id: e.id,
    name: e.name,
    // A row just saved lacks the columns it left to the database: those read as null, as they are stored.
    description: e.description ?? null,
    status: e.status,
    seed: e.seed,
    arms: e.arms,
    audience: e.audience,
    stopReason: e.stopReason ?? null,
    promotedArmId: e.promotedArmId ?? null,
    createdBy: e.createdBy ?? null,
    startedAt: e.startedAt ?? null,
    endedAt: e.endedAt ?? null,
    createdAt: e.createdAt,
  };
}
