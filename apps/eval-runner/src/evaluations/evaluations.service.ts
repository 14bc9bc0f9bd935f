import type { EvaluationEntity } from '@echoloop/persistence';
import {
  CHECKPOINT_ENDPOINT_REFUSED,
  checkpointEndpointPolicy,
  checkpointEndpointProblems,
  checkpointModelEndpoints,
} from '@echoloop/platform';
import { type SentientProfile, spreadByHiddenNeed } from '@echoloop/sentient';
import {
  Inject,
  Injectable,
  NotFoundException,
  type OnApplicationBootstrap,
  UnprocessableEntityException,
} from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { SentientCatalog } from '../catalog';
import type { EvalRunnerEnv } from '../env';
import { buildReport, runEpisodes } from '../sentient/evaluation';
import { episodeDeps, type ModelTarget } from '../sentient/model-calls';
import { EVAL_RUNNER_ENV } from '../tokens';
import type { CreateEvaluationRequest, ListEvaluationsQuery } from '@echoloop/vocabulary';
import { EvaluationsRepository } from './evaluations.repository';

const notFound = () =>
  new NotFoundException({ error: { code: 'not_found', message: 'Evaluation not found' } });

/**
 * Evaluations of checkpoints on simulated users, run in the background and stored episode by episode, so a
 * restarted runner picks unfinished ones up where they were. The simulator model is pinned per evaluation.
 */
@Injectable()
export class EvaluationsService implements OnApplicationBootstrap {
  private readonly running = new Map<string, Promise<void>>();
  /** The gateway's rule for checkpoints' endpoints, applied again here where they are called. */
  private readonly endpointPolicy;

  constructor(
    private readonly evaluations: EvaluationsRepository,
    @Inject(EVAL_RUNNER_ENV) private readonly env: EvalRunnerEnv,
    private readonly catalog: SentientCatalog,
    private readonly logger: PinoLogger,
  ) {
    this.endpointPolicy = checkpointEndpointPolicy(env);
  }

  async onApplicationBootstrap(): Promise<void> {
    const unfinished = await this.evaluations.unfinished();
    for (const evaluation of unfinished) this.start(evaluation);
  }

  async create(input: CreateEvaluationRequest): Promise<EvaluationEntity> {
    const checkpoint = await this.evaluations.findCheckpoint(input.checkpointId);
    if (!checkpoint || checkpoint.status === 'retired') {
      throw new UnprocessableEntityException({
        error: { code: 'invalid_checkpoint', message: `Checkpoint ${input.checkpointId} is not servable` },
      });
    }
    const refused = checkpointEndpointProblems(checkpoint.endpoints, this.endpointPolicy);
    if (refused.length > 0) {
      throw new UnprocessableEntityException({
        error: {
          code: CHECKPOINT_ENDPOINT_REFUSED,
          message: `Checkpoint ${checkpoint.id} has endpoints this configuration does not allow`,
          details: refused,
        },
      });
    }
    const chosen = this.choose(input);
    const evaluation = await this.evaluations.insert({
      checkpointId: checkpoint.id,
      suite: input.suite,
      profileIds: chosen.map((p) => p.id),
      policy: { baseUrl: checkpoint.endpoints[0]?.baseUrl ?? '', model: checkpoint.modelName },
      simulator: { baseUrl: this.env.SIMULATOR_BASE_URL, model: this.env.SIMULATOR_MODEL },
      mode: input.mode,
      judge: input.mode === 'epm' ? { baseUrl: this.env.JUDGE_BASE_URL, model: this.env.JUDGE_MODEL } : null,
      maxTurns: input.maxTurns ?? null,
    });
    this.start(evaluation);
    return evaluation;
  }

  /** The newest first, without their profile lists (a run may name hundreds). */
  async list(query: ListEvaluationsQuery) {
    const rows = await this.evaluations.list(query);
    return rows.map(({ profileIds, ...row }) => ({ ...row, profiles: profileIds.length }));
  }

  async get(id: string): Promise<EvaluationEntity> {
    const evaluation = await this.evaluations.find(id);
    if (!evaluation) throw notFound();
    return evaluation;
  }

  /** The report of what has finished so far (all of it once the evaluation is finished). */
  async report(id: string) {
    const evaluation = await this.get(id);
    const byId = await this.evaluations.episodes(id).finished();
    const profiles = this.catalog.profiles.filter((p) => evaluation.profileIds.includes(p.id));
    const episodes = profiles.flatMap((p) => byId.get(p.id) ?? []);
    return buildReport(
      `Sentient benchmark${evaluation.mode === 'epm' ? ' (EPM)' : ''}: ${evaluation.checkpointId} (${episodes.length}/${profiles.length} profiles)`,
      {
        policy: `${evaluation.checkpointId}: ${evaluation.policy.model} @ ${evaluation.policy.baseUrl}`,
        simulator: `${evaluation.simulator.model} @ ${evaluation.simulator.baseUrl}`,
        ...(evaluation.judge && { judge: `${evaluation.judge.model} @ ${evaluation.judge.baseUrl}` }),
      },
      profiles,
      episodes,
    );
  }

  private choose(input: CreateEvaluationRequest): SentientProfile[] {
    if (input.profiles) {
      const unknown = input.profiles.filter((id) => !this.catalog.profiles.some((p) => p.id === id));
      if (unknown.length > 0) {
        throw new UnprocessableEntityException({
          error: { code: 'unknown_profiles', message: `Unknown profiles: ${unknown.join(', ')}` },
        });
      }
      return this.catalog.profiles.filter((p) => input.profiles?.includes(p.id));
    }
    return spreadByHiddenNeed(
      this.catalog.profiles.filter((p) => p.pool === input.pool),
      input.limit,
    );
  }

  private start(evaluation: EvaluationEntity): void {
    if (this.running.has(evaluation.id)) return;
    const job = this.run(evaluation)
      .catch(async (error: unknown) => {
        this.logger.error({ err: error, evaluationId: evaluation.id }, 'evaluation failed');
        await this.evaluations.markFailed(
          evaluation.id,
          error instanceof Error ? error.message : String(error),
          new Date(),
        );
      })
      .finally(() => this.running.delete(evaluation.id));
    this.running.set(evaluation.id, job);
  }

  private async run(evaluation: EvaluationEntity): Promise<void> {
    const checkpoint = await this.evaluations.getCheckpoint(evaluation.checkpointId);
    // Checked again at every (re)start: a row the configuration no longer allows fails the run, no key sent.
    const endpoints =
      checkpoint.endpoints.length > 0 ? checkpoint.endpoints : [{ baseUrl: evaluation.policy.baseUrl }];
    const [endpoint] = checkpointModelEndpoints({ id: checkpoint.id, endpoints }, this.endpointPolicy);
    const policy: ModelTarget = {
      baseUrl: endpoint?.baseUrl ?? evaluation.policy.baseUrl,
      apiKey: endpoint?.apiKey ?? 'none',
      model: checkpoint.modelName,
      contextTokens: checkpoint.contextTokens,
      maxTokens: checkpoint.decoding.maxTokens ?? this.env.EVAL_MAX_TOKENS,
      ...(checkpoint.decoding.temperature !== undefined && { temperature: checkpoint.decoding.temperature }),
    };
    const simulator: ModelTarget = {
      baseUrl: evaluation.simulator.baseUrl,
      apiKey: this.env.SIMULATOR_API_KEY,
      model: evaluation.simulator.model,
      contextTokens: checkpoint.contextTokens,
      maxTokens: 512,
    };
    const judge: ModelTarget | undefined = evaluation.judge
      ? { ...simulator, ...evaluation.judge, apiKey: this.env.JUDGE_API_KEY, maxTokens: 1024 }
      : undefined;
    const profiles = this.catalog.profiles.filter((p) => evaluation.profileIds.includes(p.id));
    await runEpisodes({
      profiles,
      deps: episodeDeps(policy, simulator, this.catalog.card, judge),
      store: this.evaluations.episodes(evaluation.id),
      mode: evaluation.mode,
      ...(evaluation.maxTurns !== null && { maxPolicyTurns: evaluation.maxTurns }),
      concurrency: this.env.EVAL_CONCURRENCY,
    });
    const { report } = await this.report(evaluation.id);
    await this.evaluations.markFinished(evaluation.id, report.metrics, new Date());
  }
}
