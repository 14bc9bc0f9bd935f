import { type SimulatorSessionView, stripThink } from '@echoloop/vocabulary';
import { ModelError } from '@echoloop/llm';
import { CLOCK, type Clock, PeriodicWorker } from '@echoloop/platform';
import {
  episodeReward,
  openSession,
  respond,
  RLVER_TRAIN_START_SCORE,
  type SimulatorSession,
} from '@echoloop/sentient';
import {
  BadGatewayException,
  ConflictException,
  Inject,
  Injectable,
  NotFoundException,
  type OnModuleDestroy,
  type OnModuleInit,
  ServiceUnavailableException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { SentientCatalog } from '../catalog';
import type { EvalRunnerEnv } from '../env';
import { simulatorDeps } from '../sentient/model-calls';
import { EVAL_RUNNER_ENV } from '../tokens';
import type { OpenSessionInput, ReplyInput } from './simulator.schemas';
import { SimulatorSessionsRepository } from './simulator-sessions.repository';

/** What a rollout needs after each step (documented by the vocabulary's `simulatorSessionView`). */
type SessionView = SimulatorSessionView;

const notFound = () =>
  new NotFoundException({ error: { code: 'not_found', message: 'Simulator session not found' } });

/**
 * The sentient user, one reply at a time, for RL rollouts (VeRL's interaction calls it over HTTP). Sessions live in
 * PostgreSQL, so any runner instance takes any turn; only training-pool profiles are served, so the benchmark never
 * leaks into training. A model outage answers 503 and leaves the session as it was, ready for a retry.
 */
@Injectable()
export class SimulatorSessionsService implements OnModuleInit, OnModuleDestroy {
  private readonly deps;
  private readonly sweeps: PeriodicWorker<number>;

  constructor(
    private readonly sessions: SimulatorSessionsRepository,
    @Inject(EVAL_RUNNER_ENV) private readonly env: EvalRunnerEnv,
    private readonly catalog: SentientCatalog,
    @Inject(CLOCK) private readonly clock: Clock,
    logger: PinoLogger,
  ) {
    this.deps = simulatorDeps({
      baseUrl: env.SIMULATOR_BASE_URL,
      apiKey: env.SIMULATOR_API_KEY,
      model: env.SIMULATOR_MODEL,
      contextTokens: 4096,
      maxTokens: 512,
    });
    this.sweeps = new PeriodicWorker(() => this.deleteStale(), logger, {
      what: 'stale simulator session sweep',
      everyMs: 3_600_000,
    });
  }

  /** Sessions untouched for SIMULATOR_SESSION_TTL_HOURS are deleted, hourly: rollouts leave them behind. */
  onModuleInit(): void {
    this.sweeps.start({ now: false });
  }

  onModuleDestroy(): Promise<void> {
    return this.sweeps.stop();
  }

  async deleteStale(): Promise<number> {
    const cutoff = new Date(this.clock().getTime() - this.env.SIMULATOR_SESSION_TTL_HOURS * 3_600_000);
    return this.sessions.deleteUpdatedBefore(cutoff);
  }

  async open(input: OpenSessionInput): Promise<SessionView> {
    const profile = this.catalog.profile(input.profileId);
    if (!profile) {
      throw new UnprocessableEntityException({
        error: { code: 'unknown_profile', message: `Unknown profile ${input.profileId}` },
      });
    }
    if (profile.pool !== 'train') {
      throw new UnprocessableEntityException({
        error: {
          code: 'benchmark_profile',
          message: `Profile ${profile.id} is in the benchmark pool, which is never used for training`,
        },
      });
    }
    const session = await this.modelCall(() =>
      openSession(profile, this.deps, {
        startScore: input.startScore ?? RLVER_TRAIN_START_SCORE,
        ...(input.maxTurns !== undefined && { maxPolicyTurns: input.maxTurns }),
      }),
    );
    const row = await this.sessions.insert({
      profileId: profile.id,
      session: session as never,
      endReason: session.ended,
    });
    return view(row.id, session);
  }

  async reply(id: string, { reply, turn }: ReplyInput): Promise<SessionView> {
    const row = await this.sessions.find(id);
    if (!row) throw notFound();
    const current = row.session as unknown as SimulatorSession;
    if (!stripThink(reply).trim()) {
      throw new UnprocessableEntityException({
        error: { code: 'empty_reply', message: 'The reply is empty once think text is removed' },
      });
    }
    if (turn !== undefined && turn !== current.trace.length + 1) return replayed(id, current, turn, reply);
    if (current.ended) {
      throw new ConflictException({
        error: { code: 'session_ended', message: `The conversation has ended (${current.ended})` },
      });
    }
    const profile = this.catalog.profile(row.profileId);
    if (!profile) throw notFound();
    const next = await this.modelCall(() => respond(current, profile, reply, this.deps));
    // Only the version read above may be replaced: a second reply racing on the same session gets 409.
    const replaced = await this.sessions.replaceAtVersion(id, row.version, {
      session: next as never,
      endReason: next.ended,
    });
    if (!replaced) {
      // Another request took a turn first: a retry of this very reply (the first try still running) gets its answer.
      const winner = (await this.sessions.get(id)).session as unknown as SimulatorSession;
      if (turn !== undefined) return replayed(id, winner, turn, reply);
      throw new ConflictException({
        error: { code: 'concurrent_reply', message: 'Another reply to this session was taken first' },
      });
    }
    return view(id, next);
  }

  async get(id: string): Promise<SessionView & { session: SimulatorSession }> {
    const row = await this.sessions.find(id);
    if (!row) throw notFound();
    const session = row.session as unknown as SimulatorSession;
    return { ...view(id, session), session };
  }

  private async modelCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      // The simulator's model is configuration, never a runtime-loaded adapter: one the endpoint does not serve
      // is a wrong name (refused below), not an adapter about to be loaded again.
      if (error instanceof ModelError && error.retryable && error.code !== 'model_not_served') {
        throw new ServiceUnavailableException({
          error: { code: error.code, message: 'The simulator model is unavailable; try again' },
        });
      }
      if (error instanceof ModelError) {
        // A wrong key or model name: every session would fail alike, so nothing is stored as a result.
        throw new BadGatewayException({
          error: {
            code: 'simulator_rejected',
            message: `The simulator model refused the call: ${error.message}`,
          },
        });
      }
      throw error;
    }
  }
}

/** The answer to a reply for a turn already taken: the same answer if it is the same reply, else 409. */
function replayed(id: string, session: SimulatorSession, turn: number, reply: string): SessionView {
  const last = session.trace.at(-1);
  if (turn === session.trace.length && last?.policyRaw === reply) return view(id, session);
  throw new ConflictException({
    error: {
      code: 'turn_mismatch',
      message: `This session is at turn ${session.trace.length + 1}, not ${turn}`,
    },
  });
}

function view(id: string, session: SimulatorSession): SessionView {
  const last = session.trace.at(-1);
  return {
    id,
    profileId: session.profileId,
    // An episode that ended in error has no next user message.
    userMessage: session.ended === 'error' ? '' : (last?.userMessage ?? session.opener),
    score: session.state.score,
    bucket: session.state.bucket,
    delta: last?.delta ?? 0,
    turns: session.trace.length,
    done: session.ended !== null,
    endReason: session.ended,
    turnScore: session.state.score / 100,
    reward: episodeReward(session.state.score),
  };
}
