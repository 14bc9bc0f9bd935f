import { CLOCK, type Clock } from '@echoloop/platform';
import type { ChatMessage, GateCheck, GateCheckName, GateReport } from '@echoloop/vocabulary';
import { Inject, Injectable } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { CheckpointView } from '../clients/gateway.client';
import { EvalRunnerClient, type EvaluationView } from '../clients/eval-runner.client';
import { LabellerClient, type ScoreItem } from '../clients/labeller.client';
import type { OrchestratorEnv } from '../env';
import { transient } from '../jobs/job-failure';
import { GreedyReplies } from '../serving/greedy-replies';
import { ORCHESTRATOR_ENV } from '../tokens';
import { emptyOrRefusal, repeatedNgramShare, repeatedSentenceShare, wordCount } from './degeneration';
import {
  type CheckOptions,
  driftCheck,
  guardCheck,
  lengthRatioCheck,
  metricCheck,
  notRunCheck,
  offCheck,
  type Pair,
} from './gate-checks';

/** The gate's verdict (GateReport), as the job stores it. */
export type GateResult = GateReport;

// How much more degenerate than the default a candidate may be before it counts (a share of answers or n-grams).
const GUARD_TOLERANCE = 0.05;
const HELDOUT_CHECKS: readonly GateCheckName[] = [
  'heldout_reward',
  'repeated_sentences',
  'repeated_ngrams',
  'empty_or_refusal',
  'length_ratio',
];

const why = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Candidate against the current default on the same ground: the same sentient-benchmark profiles (eval-runner) and
 * the snapshot's held-out prompts answered greedily by both, scored by the live reward and read by the degeneration
 * guards. Every difference is paired, with its confidence interval. The candidate passes when no check is
 * significantly worse and every check ran (or was turned off by an operator).
 */
@Injectable()
export class GateService {
  constructor(
    private readonly evals: EvalRunnerClient,
    private readonly labeller: LabellerClient,
    private readonly replies: GreedyReplies,
    @Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async run(
    candidate: CheckpointView,
    current: CheckpointView,
    heldoutFile: string,
    training: { klToParent: number | null },
  ): Promise<GateResult> {
    const options = { level: this.env.GATE_CONFIDENCE, minItems: this.env.GATE_MIN_ITEMS };
    const [sentient, heldout] = await Promise.all([
      this.sentient(candidate, current, options),
      this.heldout(candidate, current, heldoutFile, options),
    ]);
    const drift = driftCheck(training.klToParent, this.env.RL_MAX_KL);
    const checks = [sentient.check, ...heldout, drift].map((check) =>
      this.env.GATE_CHECKS_OFF.includes(check.name) ? offCheck(check.name, 'GATE_CHECKS_OFF') : check,
    );
    const reasons = checks.flatMap((c) =>
      c.status === 'failed'
        ? [c.detail ?? c.name]
        : c.status === 'not_run'
          ? [`${c.name} could not run: ${c.detail}`]
          : [],
    );
    const main = checks.find((c) => c.role === 'metric' && c.status === 'passed');
    const better = main?.significance === 'higher';
    if (this.env.GATE_REQUIRE_BETTER && !better)
      reasons.push(
        main
          ? `${main.name} not significantly better than the default, as GATE_REQUIRE_BETTER asks`
          : 'no metric ran to show the candidate better, as GATE_REQUIRE_BETTER asks',
      );
    return {
      passed: reasons.length === 0,
      better,
      level: options.level,
      reasons,
      notes: checks.flatMap((c) => (c.status === 'off' ? [`${c.name} off: ${c.detail}`] : [])),
      checks,
      evaluations: sentient.evaluations,
    };
  }

  private async sentient(
    candidate: CheckpointView,
    current: CheckpointView,
    options: CheckOptions,
  ): Promise<{ check: GateCheck; evaluations: GateResult['evaluations'] }> {
    if (this.env.GATE_PROFILES === 0)
      return { check: offCheck('sentient', 'GATE_PROFILES=0'), evaluations: null };
    // Turned off: not played at all (the benchmark is the gate's longest check).
    if (this.env.GATE_CHECKS_OFF.includes('sentient'))
      return { check: offCheck('sentient', 'GATE_CHECKS_OFF'), evaluations: null };
    try {
      const first = await this.evals.start(candidate.id, { limit: this.env.GATE_PROFILES });
      const second = await this.evals.start(current.id, { profiles: first.profileIds });
      const evaluations = { candidate: first.id, default: second.id };
      const [a, b] = await Promise.all([this.finished(first.id), this.finished(second.id)]);
      const scores = new Map(b.report?.episodes.map((e) => [e.profileId, e.finalScore]));
      const pairs = (a.report?.episodes ?? []).flatMap((e): Pair[] => {
        const other = scores.get(e.profileId);
        return other === undefined ? [] : [[e.finalScore, other]];
      });
      return { check: metricCheck('sentient', pairs, options), evaluations };
    } catch (error) {
      // A service that is away: the driver retries the whole step instead of failing the check.
      if (transient(error)) throw error;
      return { check: notRunCheck('sentient', why(error)), evaluations: null };
    }
  }

  private async finished(id: string): Promise<EvaluationView> {
    const deadline = this.clock().getTime() + this.env.GATE_TIMEOUT_SECONDS * 1_000;
    for (;;) {
      const evaluation = await this.evals.get(id);
      if (evaluation.status === 'finished') return evaluation;
      if (evaluation.status === 'failed') throw new Error(`evaluation ${id} failed: ${evaluation.error}`);
      if (this.clock().getTime() > deadline) throw new Error(`evaluation ${id} did not finish in time`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }

  private async heldout(
    candidate: CheckpointView,
    current: CheckpointView,
    file: string,
    options: CheckOptions,
  ): Promise<GateCheck[]> {
    if (this.env.GATE_HELDOUT_ITEMS === 0)
      return HELDOUT_CHECKS.map((name) => offCheck(name, 'GATE_HELDOUT_ITEMS=0'));
    let answers: { prompts: ChatMessage[][]; candidate: string[]; default: string[] };
    try {
      const prompts = await readPrompts(file, this.env.GATE_HELDOUT_ITEMS);
      const [fromCandidate, fromDefault] = await Promise.all([
        this.replies.answer(candidate, prompts),
        this.replies.answer(current, prompts),
      ]);
      answers = { prompts, candidate: fromCandidate, default: fromDefault };
    } catch (error) {
      if (transient(error)) throw error;
      return HELDOUT_CHECKS.map((name) => notRunCheck(name, `no held-out answers: ${why(error)}`));
    }
    const per = (measure: (text: string) => number) =>
      answers.candidate.map((text, i): Pair => [measure(text), measure(answers.default[i] ?? '')]);
    return [
      await this.reward(answers, options),
      guardCheck('repeated_sentences', per(repeatedSentenceShare), GUARD_TOLERANCE, options),
      guardCheck('repeated_ngrams', per(repeatedNgramShare), GUARD_TOLERANCE, options),
      guardCheck('empty_or_refusal', per(emptyOrRefusal), GUARD_TOLERANCE, options),
      lengthRatioCheck(per(wordCount), this.env.GATE_MAX_LENGTH_RATIO, options),
    ];
  }

  /** The live composite reward of both answers to each prompt; only prompts both got a score for are paired. */
  private async reward(
    answers: { prompts: ChatMessage[][]; candidate: string[]; default: string[] },
    options: CheckOptions,
  ): Promise<GateCheck> {
    if (this.env.GATE_CHECKS_OFF.includes('heldout_reward'))
      return offCheck('heldout_reward', 'GATE_CHECKS_OFF');
    const toItems = (replies: string[]): ScoreItem[] =>
      answers.prompts.map((prompt, i) => ({
        history: prompt.filter((m): m is ScoreItem['history'][number] => m.role !== 'system'),
        reply: replies[i] ?? '',
      }));
    try {
      const [c, d] = await Promise.all([
        this.labeller.composites(toItems(answers.candidate)),
        this.labeller.composites(toItems(answers.default)),
      ]);
      const pairs = c.flatMap((value, i): Pair[] => {
        const other = d[i];
        return value === null || value === undefined || other === null || other === undefined
          ? []
          : [[value, other]];
      });
      return metricCheck('heldout_reward', pairs, options);
    } catch (error) {
      if (transient(error)) throw error;
      return notRunCheck('heldout_reward', why(error));
    }
  }
}

/** The first `limit` held-out prompts that end with a user message (what the score endpoint needs). */
async function readPrompts(file: string, limit: number): Promise<ChatMessage[][]> {
  const prompts: ChatMessage[][] = [];
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const prompt = (JSON.parse(line) as { prompt?: ChatMessage[] }).prompt ?? [];
    if (prompt.at(-1)?.role === 'user') prompts.push(prompt);
    if (prompts.length >= limit) break;
  }
  lines.close();
  return prompts;
}
