import { ChatModelClient, DEFAULT_CLIENT_OPTIONS, ModelError, SideWorkLanes } from '@echoloop/llm';
import {
  CheckpointEndpointRefusedError,
  checkpointEndpointPolicy,
  checkpointEndpointProblems,
  checkpointModelEndpoints,
  MetricsService,
  sideWorkMetrics,
  validationFailed,
} from '@echoloop/platform';
import { AdapterPlacementEntity, CheckpointEntity, PG_ERROR, pgErrorCode } from '@echoloop/persistence';
import {
  ConflictException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { TtlCache } from '../common/ttl-cache';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import type { CreateCheckpointInput } from './checkpoint.schemas';
import { CheckpointsRepository } from './checkpoints.repository';

/**
 * The checkpoint registry: which model serves a conversation, on which endpoints, with which decoding. The
 * configured default (LLM_* variables) is registered at start-up; model clients are cached per checkpoint.
 */
@Injectable()
export class CheckpointsService implements OnApplicationBootstrap {
  private readonly clients = new Map<string, { version: number; client: ChatModelClient }>();
  // Changes are announced (CacheChanges): a turn never waits for these, and the ttl bounds a lost announcement.
  private readonly defaults = new TtlCache<'default', CheckpointEntity>(5_000, { serveStale: true });
  private readonly byId = new TtlCache<string, CheckpointEntity>(5_000, { serveStale: true });
  // The reconciler announces a placement change as a change of its checkpoint (CacheChanges).
  private readonly served = new TtlCache<string, boolean>(5_000, { serveStale: true });
  private readonly logger = new Logger(CheckpointsService.name);
  /** Where endpoints may be and which variables their keys may come from (CHECKPOINT_* variables). */
  private readonly endpointPolicy;
  /** The director, persona extraction and summaries wait here for users' replies on each engine to pass. */
  private readonly sideWork: SideWorkLanes;

  constructor(
    @InjectRepository(CheckpointEntity) private readonly checkpoints: Repository<CheckpointEntity>,
    @InjectRepository(AdapterPlacementEntity)
    private readonly adapterPlacements: Repository<AdapterPlacementEntity>,
    private readonly registry: CheckpointsRepository,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    metrics: MetricsService,
  ) {
    this.endpointPolicy = checkpointEndpointPolicy(env);
    this.sideWork = new SideWorkLanes(env, sideWorkMetrics(metrics));
  }

  async onApplicationBootstrap(): Promise<void> {
    const configured = {
      id: this.env.DEFAULT_CHECKPOINT_ID,
      modelName: this.env.LLM_MODEL,
      endpoints: [{ baseUrl: this.env.LLM_BASE_URL, apiKeyEnv: 'LLM_API_KEY' }],
      decoding: { maxTokens: this.env.LLM_MAX_TOKENS },
      contextTokens: this.env.LLM_CONTEXT_TOKENS,
      status: 'active' as const,
    };
    await this.registry.registerConfigured(configured);
  }

  /**
   * Drops the cached copy of a checkpoint (changed in another process; CacheChanges), or of all when no id is
   * given. Any change may concern the default (a promotion), so it goes too.
   */
  forget(id?: string): void {
    this.defaults.delete('default');
    if (id === undefined) {
      this.byId.clear();
      this.served.clear();
    } else {
      this.byId.delete(id);
      this.served.delete(id);
    }
  }

  /**
   * Whether a turn can go to this checkpoint now: a base model always; a LoRA adapter when the adapter reconciler
   * saw it loaded on at least one of its endpoints (the client rotates past an endpoint that answers 404).
   */
  async servable(checkpoint: CheckpointEntity): Promise<boolean> {
    if (checkpoint.adapterPath === null) return true;
    return this.served.get(checkpoint.id, (id) =>
      this.adapterPlacements.existsBy({ checkpointId: id, state: 'loaded' }),
    );
  }

  /** Where adapters are served (all, or one checkpoint's), by checkpoint id. */
  async placements(id?: string): Promise<Map<string, AdapterPlacementEntity[]>> {
    const rows = await this.adapterPlacements.find({
      ...(id !== undefined && { where: { checkpointId: id } }),
      order: { baseUrl: 'ASC' },
    });
    const byCheckpoint = new Map<string, AdapterPlacementEntity[]>();
    for (const row of rows) {
      const placed = byCheckpoint.get(row.checkpointId);
      if (placed) placed.push(row);
      else byCheckpoint.set(row.checkpointId, [row]);
    }
    return byCheckpoint;
  }

  /** For the hot path (an experiment arm's checkpoint on every turn): cached like the default. */
  cached(id: string): Promise<CheckpointEntity> {
    return this.byId.get(id, (key) => this.get(key));
  }

  async get(id: string): Promise<CheckpointEntity> {
    const checkpoint = await this.checkpoints.findOneBy({ id });
    if (!checkpoint) {
      throw new NotFoundException({ error: { code: 'not_found', message: `Checkpoint ${id} not found` } });
    }
    return checkpoint;
  }

  /** Makes a checkpoint the default (inside the caller's transaction when given). */
  async setDefault(id: string, manager?: EntityManager): Promise<void> {
    const refused = await this.registry.setDefault(id, manager);
    if (refused === 'not_found')
      throw new NotFoundException({ error: { code: 'not_found', message: `Checkpoint ${id} not found` } });
    if (refused === 'retired') {
      throw new ConflictException({
        error: { code: 'checkpoint_retired', message: `Checkpoint ${id} is retired` },
      });
    }
    this.defaults.delete('default');
    this.byId.delete(id);
  }

  /** Takes a checkpoint out of service; the default cannot be retired (make another the default first). */
  async retire(id: string): Promise<CheckpointEntity> {
    const checkpoint = await this.get(id);
    if (checkpoint.isDefault) {
      throw new ConflictException({
        error: { code: 'checkpoint_is_default', message: 'The default checkpoint cannot be retired' },
      });
    }
    await this.checkpoints.update({ id }, { status: 'retired' });
    this.byId.delete(id);
    return this.get(id);
  }

  /** Read on every turn: a change reaches every process on its announcement (CacheChanges), at worst in 5 s. */
  defaultCheckpoint(): Promise<CheckpointEntity> {
    return this.defaults.get('default', () => this.checkpoints.findOneByOrFail({ isDefault: true }));
  }

  list(): Promise<CheckpointEntity[]> {
    return this.checkpoints.find({ order: { createdAt: 'ASC' } });
  }

  async create(input: CreateCheckpointInput): Promise<CheckpointEntity> {
    const problems = checkpointEndpointProblems(input.endpoints, this.endpointPolicy);
    if (problems.length > 0) throw validationFailed(problems);
    try {
      // insert, not save: save would silently overwrite a checkpoint with the same id.
      await this.checkpoints.insert({ ...input, isDefault: false });
      return await this.checkpoints.findOneByOrFail({ id: input.id });
    } catch (error) {
      if (pgErrorCode(error) === PG_ERROR.uniqueViolation) {
        throw new ConflictException({
          error: { code: 'checkpoint_exists', message: `Checkpoint ${input.id} exists` },
        });
      }
      throw error;
    }
  }

  /**
   * A client for the checkpoint's endpoints, rebuilt when the checkpoint changes. The endpoint policy is checked
   * for each version of the row, so one the configuration does not allow is refused (a `model_rejected` turn), its
   * key never sent.
   */
  clientFor(checkpoint: CheckpointEntity): ChatModelClient {
    const version = checkpoint.updatedAt.getTime();
    const cached = this.clients.get(checkpoint.id);
    // The policy is fixed at start-up: a version checked once stays allowed.
    if (cached?.version === version) return cached.client;
    const client = new ChatModelClient(this.allowedEndpoints(checkpoint), {
      ...DEFAULT_CLIENT_OPTIONS,
      firstTokenTimeoutMs: this.env.LLM_FIRST_TOKEN_TIMEOUT_MS,
      idleTimeoutMs: this.env.LLM_IDLE_TIMEOUT_MS,
      keepAliveMs: this.env.LLM_KEEP_ALIVE_MS,
      sideWork: this.sideWork,
    });
    this.clients.set(checkpoint.id, { version, client });
    return client;
  }

  private allowedEndpoints(checkpoint: CheckpointEntity) {
    try {
      return checkpointModelEndpoints(checkpoint, this.endpointPolicy);
    } catch (error) {
      if (!(error instanceof CheckpointEndpointRefusedError)) throw error;
      this.logger.warn(`${error.message}`);
      throw new ModelError(
        'model_rejected',
        `Checkpoint ${checkpoint.id} is not allowed by configuration`,
        false,
      );
    }
  }
}
