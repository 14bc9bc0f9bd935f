import { ModelError } from '@echoloop/llm';
import { CLOCK } from '@echoloop/platform';
import type { SimulatorSessionEntity } from '@echoloop/persistence';
import type { SimulatorSession } from '@echoloop/sentient';
import {
  BadGatewayException,
  ConflictException,
  NotFoundException,
  ServiceUnavailableException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { EntityNotFoundError } from 'typeorm';
import { SentientCatalog } from '../catalog';
import { actorAnswer, analyserAnswer, testProfile } from '../sentient/profile.spec-helper';
import { EVAL_RUNNER_ENV } from '../tokens';
import { SimulatorSessionsRepository } from './simulator-sessions.repository';
import { SimulatorSessionsService } from './simulator-sessions.service';

// The simulated user's model (analyser and actor) answers from here, without a model server.
const mockModel = { analyser: jest.fn(), actor: jest.fn() };
jest.mock('../sentient/model-calls', () => ({ simulatorDeps: () => mockModel }));

const ENV = {
  SIMULATOR_BASE_URL: 'http://127.0.0.1:18000/v1',
  SIMULATOR_API_KEY: 'local',
  SIMULATOR_MODEL: 'sim',
  SIMULATOR_SESSION_TTL_HOURS: 72,
};

const NOW = new Date('2026-11-28T12:00:00Z');

const PROFILES = [testProfile('train-1', 'train'), testProfile('bench-1', 'benchmark')];

/** Sessions in memory, with the row version the repository's conditional replace checks. */
class InMemorySessions {
  rows = new Map<string, SimulatorSessionEntity>();
  private ids = 0;

  async deleteUpdatedBefore(cutoff: Date): Promise<number> {
    const stale = [...this.rows.values()].filter((row) => row.updatedAt < cutoff);
    for (const row of stale) this.rows.delete(row.id);
    return stale.length;
  }

  async insert(values: Pick<SimulatorSessionEntity, 'profileId' | 'session' | 'endReason'>) {
    const now = new Date();
    const row = {
      ...structuredClone(values),
      id: `s${++this.ids}`,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    this.rows.set(row.id, row);
    return structuredClone(row);
  }

  async find(id: string) {
    return structuredClone(this.rows.get(id) ?? null);
  }

  async get(id: string) {
    const row = await this.find(id);
    if (!row) throw new EntityNotFoundError('SimulatorSessionEntity', { id });
    return row;
  }

  async replaceAtVersion(
    id: string,
    version: number,
    changes: Pick<SimulatorSessionEntity, 'session' | 'endReason'>,
  ) {
    const row = this.rows.get(id);
    if (!row || row.version !== version) return false;
    this.rows.set(id, { ...row, ...structuredClone(changes), version: version + 1, updatedAt: new Date() });
    return true;
  }

  session(id: string): SimulatorSession {
    return this.rows.get(id)?.session as unknown as SimulatorSession;
  }
}

async function setUp() {
  const sessions = new InMemorySessions();
  const catalog = { profiles: PROFILES, profile: (id: string) => PROFILES.find((p) => p.id === id) };
  const moduleRef = await Test.createTestingModule({
    providers: [
      SimulatorSessionsService,
      { provide: SimulatorSessionsRepository, useValue: sessions },
      { provide: SentientCatalog, useValue: catalog },
      { provide: EVAL_RUNNER_ENV, useValue: ENV },
      { provide: CLOCK, useValue: () => NOW },
      { provide: PinoLogger, useValue: { warn: jest.fn() } },
    ],
  }).compile();
  return { service: moduleRef.get(SimulatorSessionsService), sessions, catalog };
}

describe('SimulatorSessionsService', () => {
  let actorCalls = 0;
  beforeEach(() => {
    actorCalls = 0;
    mockModel.analyser.mockReset().mockResolvedValue(analyserAnswer(10));
    mockModel.actor.mockReset().mockImplementation(async () => actorAnswer(`user ${++actorCalls}`));
  });

  it('opens a session on a training profile at the RLVER start score and stores it whole', async () => {
    const { service, sessions } = await setUp();

    const view = await service.open({ profileId: 'train-1', maxTurns: 3 });

    expect(view).toEqual({
      id: 's1',
      profileId: 'train-1',
      userMessage: 'ugh. work again.',
      score: 30,
      bucket: expect.any(String),
      delta: 0,
      turns: 0,
      done: false,
      endReason: null,
      turnScore: 0.3,
      reward: 0.3,
    });
    expect(sessions.session('s1')).toMatchObject({ profileId: 'train-1', startScore: 30, maxPolicyTurns: 3 });
    expect(sessions.rows.get('s1')?.endReason).toBeNull();
  });

  it.each([
    ['an unknown profile', 'nobody', 'unknown_profile'],
    ['a benchmark profile, which never serves training', 'bench-1', 'benchmark_profile'],
  ])('refuses %s with 422, storing nothing', async (_, profileId, code) => {
    const { service, sessions } = await setUp();

    const attempt = service.open({ profileId });

    await expect(attempt).rejects.toThrow(UnprocessableEntityException);
    await expect(attempt).rejects.toMatchObject({ response: { error: { code } } });
    expect(sessions.rows.size).toBe(0);
  });

  it('takes a reply as the next turn: the score moves and the user answers', async () => {
    const { service, sessions } = await setUp();
    const { id } = await service.open({ profileId: 'train-1' });

    const view = await service.reply(id, { reply: '<think>plan</think>That sounds unfair to you.', turn: 1 });

    expect(view).toMatchObject({ id, userMessage: 'user 1', score: 40, delta: 10, turns: 1, done: false });
    expect(sessions.rows.get(id)?.version).toBe(2);
    expect(sessions.session(id).trace[0]).toMatchObject({
      policyRaw: '<think>plan</think>That sounds unfair to you.',
      policyReply: 'That sounds unfair to you.',
    });
  });

  it('ends at max turns, and then refuses another reply with 409 session_ended', async () => {
    const { service, sessions } = await setUp();
    const { id } = await service.open({ profileId: 'train-1', maxTurns: 1 });

    await expect(service.reply(id, { reply: 'I hear you.' })).resolves.toMatchObject({
      done: true,
      endReason: 'max_turns',
    });
    expect(sessions.rows.get(id)?.endReason).toBe('max_turns');
    await expect(service.reply(id, { reply: 'still there?' })).rejects.toMatchObject({
      response: { error: { code: 'session_ended' } },
    });
    expect(mockModel.analyser).toHaveBeenCalledTimes(1);
  });

  it('is a 404 for an unknown session, and for one whose profile the catalog no longer has', async () => {
    const { service, catalog } = await setUp();
    await expect(service.reply('ghost', { reply: 'hello' })).rejects.toThrow(NotFoundException);
    await expect(service.get('ghost')).rejects.toMatchObject({ response: { error: { code: 'not_found' } } });

    const { id } = await service.open({ profileId: 'train-1' });
    catalog.profile = () => undefined;
    await expect(service.reply(id, { reply: 'hello' })).rejects.toThrow(NotFoundException);
    expect(mockModel.analyser).not.toHaveBeenCalled();
  });

  it('refuses a reply that is only think text, taking no turn', async () => {
    const { service, sessions } = await setUp();
    const { id } = await service.open({ profileId: 'train-1' });

    await expect(service.reply(id, { reply: '<think>only thinking</think>  ' })).rejects.toMatchObject({
      response: { error: { code: 'empty_reply' } },
    });
    expect(mockModel.analyser).not.toHaveBeenCalled();
    expect(sessions.rows.get(id)?.version).toBe(1);
  });

  it('answers a retried reply for the last turn taken again, and refuses another reply for it', async () => {
    const { service, sessions } = await setUp();
    const { id } = await service.open({ profileId: 'train-1' });
    const first = await service.reply(id, { reply: 'That sounds hard.', turn: 1 });

    await expect(service.reply(id, { reply: 'That sounds hard.', turn: 1 })).resolves.toEqual(first);
    await expect(service.reply(id, { reply: 'Something else.', turn: 1 })).rejects.toMatchObject({
      response: { error: { code: 'turn_mismatch' } },
    });
    await expect(service.reply(id, { reply: 'Too far ahead.', turn: 5 })).rejects.toThrow(ConflictException);
    expect(mockModel.analyser).toHaveBeenCalledTimes(1);
    expect(sessions.session(id).trace).toHaveLength(1);
  });

  it('takes a turn once when replies race: the loser gets 409, or the winner for a retry of the same reply', async () => {
    const { service, sessions } = await setUp();
    const { id } = await service.open({ profileId: 'train-1' });

    const [a, b] = await Promise.allSettled([
      service.reply(id, { reply: 'Same reply.', turn: 1 }),
      service.reply(id, { reply: 'Same reply.', turn: 1 }),
    ]);
    expect(a).toMatchObject({ status: 'fulfilled', value: { turns: 1 } });
    expect(b).toEqual(a);
    expect(sessions.session(id).trace).toHaveLength(1);

    const [c, d] = await Promise.allSettled([
      service.reply(id, { reply: 'Mine.' }),
      service.reply(id, { reply: 'Yours.' }),
    ]);
    expect(c).toMatchObject({ status: 'fulfilled', value: { turns: 2 } });
    expect(d).toMatchObject({
      status: 'rejected',
      reason: { response: { error: { code: 'concurrent_reply' } } },
    });
    expect(sessions.session(id).trace.map((t) => t.policyRaw)).toEqual(['Same reply.', 'Mine.']);
  });

  it('answers 503 while the simulator model is down and leaves the session as it was for a retry', async () => {
    const { service, sessions } = await setUp();
    const { id } = await service.open({ profileId: 'train-1' });
    mockModel.analyser.mockRejectedValue(new ModelError('model_unavailable', 'connection refused', true));

    await expect(service.reply(id, { reply: 'Hello.', turn: 1 })).rejects.toThrow(
      ServiceUnavailableException,
    );
    expect(sessions.rows.get(id)?.version).toBe(1);

    mockModel.analyser.mockResolvedValue(analyserAnswer(-5));
    await expect(service.reply(id, { reply: 'Hello.', turn: 1 })).resolves.toMatchObject({
      turns: 1,
      score: 25,
    });
  });

  it('answers 502 when the simulator model refuses the call, taking no turn', async () => {
    const { service, sessions } = await setUp();
    const { id } = await service.open({ profileId: 'train-1' });
    mockModel.analyser.mockRejectedValue(new ModelError('model_rejected', 'unknown model', false, 404));

    await expect(service.reply(id, { reply: 'Hello.' })).rejects.toThrow(BadGatewayException);
    await expect(service.reply(id, { reply: 'Hello.' })).rejects.toMatchObject({
      response: { error: { code: 'simulator_rejected' } },
    });
    expect(sessions.rows.get(id)?.version).toBe(1);
  });

  it('gets a session whole, with its view', async () => {
    const { service } = await setUp();
    const { id } = await service.open({ profileId: 'train-1' });
    await service.reply(id, { reply: 'I am listening.' });

    await expect(service.get(id)).resolves.toMatchObject({
      id,
      turns: 1,
      userMessage: 'user 1',
      session: { profileId: 'train-1', trace: [{ policyRaw: 'I am listening.' }] },
    });
  });

  it('deletes the sessions untouched for SIMULATOR_SESSION_TTL_HOURS, keeping the others', async () => {
    const { service, sessions } = await setUp();
    const stale = await service.open({ profileId: 'train-1' });
    const recent = await service.open({ profileId: 'train-1' });
    const justInTime = await service.open({ profileId: 'train-1' });
    const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);
    sessions.rows.get(stale.id)!.updatedAt = new Date(hoursAgo(72).getTime() - 1);
    sessions.rows.get(recent.id)!.updatedAt = hoursAgo(71);
    sessions.rows.get(justInTime.id)!.updatedAt = hoursAgo(72);

    await expect(service.deleteStale()).resolves.toBe(1);
    expect([...sessions.rows.keys()]).toEqual([recent.id, justInTime.id]);
  });
});
