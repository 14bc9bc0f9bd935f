import { CLOCK, type Clock } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { CheckpointView } from '../clients/gateway.client';
import { EvalRunnerClient, type EvaluationView } from '../clients/eval-runner.client';
import { LabellerClient, type ScoreItem } from '../clients/labeller.client';
import type { OrchestratorEnv } from '../env';
import { GreedyReplies } from '../serving/greedy-replies';
import { ORCHESTRATOR_ENV } from '../tokens';

export interface GateResult {
  passed: boolean;
  /** Why it failed (empty when it passed). */
  reasons: string[];
  /** Checks that could not run, and why (they neither pass nor fail the candidate). */
  notes: string[];
  sentient: {
    candidateEvaluationId: string;
    defaultEvaluationId: string;
    profiles: number;
    candidate: number | null;
    default: number | null;
    delta: number | null;
  } | null;
  heldout: { items: number; candidate: number | null; default: number | null; delta: number | null } | null;
}

type Message = { role: 'system' | 'user' | 'assistant'; content: string };

const mean = (values: readonly number[]) =>
  values.length ? values.reduce((sum, v) => sum + v, 0) / values.length : null;
const round = (value: number | null) => (value === null ? null : Math.round(value * 10_000) / 10_000);

/**
 * Candidate against the current default, on the same ground: the same sentient-benchmark profiles (eval-runner),
 * and the snapshot's held-out prompts answered greedily by both and scored by the live reward models.
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

  async run(candidate: CheckpointView, current: CheckpointView, heldoutFile: string): Promise<GateResult> {
    const [sentient, heldout] = await Promise.all([
      this.env.GATE_PROFILES > 0 ? this.sentient(candidate, current) : null,
      this.env.GATE_HELDOUT_ITEMS > 0 ? this.heldout(candidate, current, heldoutFile) : null,
    ]);
    const reasons: string[] = [];
    const notes: string[] = [];
    if (!sentient) notes.push('sentient benchmark off (GATE_PROFILES=0)');
    else if (sentient.delta === null) reasons.push('sentient benchmark gave no score');
    else if (sentient.delta < this.env.GATE_MIN_SENTIENT_DELTA)
      reasons.push(
        `sentient score ${sentient.candidate} vs default ${sentient.default}: delta ${sentient.delta} < ${this.env.GATE_MIN_SENTIENT_DELTA}`,
      );
    if (!heldout) notes.push('held-out reward off (GATE_HELDOUT_ITEMS=0)');
    else if (heldout.delta === null) notes.push('held-out reward skipped: no held-out prompt got a score');
    else if (heldout.delta < this.env.GATE_MIN_REWARD_DELTA)
      reasons.push(
        `held-out reward ${heldout.candidate} vs default ${heldout.default}: delta ${heldout.delta} < ${this.env.GATE_MIN_REWARD_DELTA}`,
      );
    return { passed: reasons.length === 0, reasons, notes, sentient, heldout };
  }

  private async sentient(
    candidate: CheckpointView,
    current: CheckpointView,
  ): Promise<GateResult['sentient']> {
    const first = await this.evals.start(candidate.id, { limit: this.env.GATE_PROFILES });
    const second = await this.evals.start(current.id, { profiles: first.profileIds });
    const [a, b] = await Promise.all([this.finished(first.id), this.finished(second.id)]);
    const score = (e: EvaluationView) => e.metrics?.meanFinalScore ?? null;
    const [c, d] = [score(a), score(b)];
    return {
      candidateEvaluationId: a.id,
      defaultEvaluationId: b.id,
      profiles: first.profileIds.length,
      candidate: round(c),
      default: round(d),
      delta: c === null || d === null ? null : round(c - d),
    };
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
  ): Promise<GateResult['heldout']> {
    const prompts = await readPrompts(file, this.env.GATE_HELDOUT_ITEMS);
    if (prompts.length === 0) return { items: 0, candidate: null, default: null, delta: null };
    const toItems = (replies: string[]): ScoreItem[] =>
      prompts.map((prompt, i) => ({
        history: prompt.filter((m): m is ScoreItem['history'][number] => m.role !== 'system'),
        reply: replies[i] ?? '',
      }));
    const candidateReplies = await this.replies.answer(candidate, prompts);
    const defaultReplies = await this.replies.answer(current, prompts);
    const [c, d] = await Promise.all([
      this.labeller.composites(toItems(candidateReplies)),
      this.labeller.composites(toItems(defaultReplies)),
    ]);
    // Only prompts both sides got a score for are compared.
    const both = c.flatMap((value, i) => {
      const other = d[i];
      return value !== null && value !== undefined && other !== null && other !== undefined
        ? [[value, other] as const]
        : [];
    });
    const cm = mean(both.map(([value]) => value));
    const dm = mean(both.map(([, value]) => value));
    return {
      items: both.length,
      candidate: round(cm),
      default: round(dm),
      delta: cm === null || dm === null ? null : round(cm - dm),
    };
  }
}

/** The first `limit` held-out prompts that end with a user message (what the score endpoint needs). */
async function readPrompts(file: string, limit: number): Promise<Message[][]> {
  const prompts: Message[][] = [];
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const prompt = (JSON.parse(line) as { prompt?: Message[] }).prompt ?? [];
    if (prompt.at(-1)?.role === 'user') prompts.push(prompt);
    if (prompts.length >= limit) break;
  }
  lines.close();
  return prompts;
}
