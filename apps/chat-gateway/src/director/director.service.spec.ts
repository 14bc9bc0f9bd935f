import type { CheckpointEntity, ConversationEntity } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { GATEWAY_ENV, gatewayEnv } from '../env';
import { DirectorService } from './director.service';

const settle = () => new Promise((resolve) => setImmediate(resolve));

async function setUp(concurrency: number, queueSize: number) {
  /** Model calls in flight, each answered when released. */
  const calls: (() => void)[] = [];
  const client = {
    complete: jest.fn(
      () =>
        new Promise((resolve) =>
          calls.push(() =>
            resolve({ text: '{"decision":"keep","note":"Stay with it."}', finishReason: 'stop' }),
          ),
        ),
    ),
  };
  const metrics = new MetricsService('test');
  const conversations = { storeDirectorNote: jest.fn(async () => undefined) };
  const module = await Test.createTestingModule({
    providers: [
      DirectorService,
      {
        provide: GATEWAY_ENV,
        useValue: gatewayEnv.parse({
          DIRECTOR_EVERY_USER_TURNS: '5',
          DIRECTOR_CONCURRENCY: String(concurrency),
          DIRECTOR_QUEUE_SIZE: String(queueSize),
        }),
      },
      { provide: ConversationsRepository, useValue: conversations },
      { provide: CheckpointsService, useValue: { clientFor: () => client } },
      { provide: PinoLogger, useValue: { warn: jest.fn(), debug: jest.fn() } },
      { provide: MetricsService, useValue: metrics },
    ],
  }).compile();
  const director = module.get(DirectorService);
  const checkpoint = { id: 'base', modelName: 'fake' } as CheckpointEntity;
  const consider = (conversationId: string, turn = 5) =>
    director.consider(
      { id: conversationId, director: null } as ConversationEntity,
      turn,
      { characterName: 'Mira', transcript: [{ role: 'user', content: 'hi' }], personaGuidance: '' },
      checkpoint,
    );
  const counter = async (name: string, labels: Record<string, string>) =>
    (await metrics.registry.getSingleMetric(name)?.get())?.values.find((v) =>
      Object.entries(labels).every(([k, l]) => v.labels[k] === l),
    )?.value ?? 0;
  return { module, director, client, calls, conversations, consider, counter };
}

describe('DirectorService side-work limits', () => {
  it('runs at most DIRECTOR_CONCURRENCY steps at once, queues DIRECTOR_QUEUE_SIZE, drops and counts the rest', async () => {
    const { module, client, calls, conversations, consider, counter } = await setUp(2, 1);
    for (const id of ['c1', 'c2', 'c3', 'c4', 'c5']) consider(id);
    await settle();

    expect(client.complete).toHaveBeenCalledTimes(2);
    expect(await counter('side_work_dropped_total', { work: 'director' })).toBe(2);

    calls.shift()!();
    await settle();
    expect(client.complete).toHaveBeenCalledTimes(3); // the queued step got the free slot
    expect(conversations.storeDirectorNote).toHaveBeenCalledTimes(1); // the first note was stored
    expect(conversations.storeDirectorNote).toHaveBeenCalledWith('c1', {
      turn: 5,
      decision: 'keep',
      note: 'Stay with it.',
      decidedAt: expect.any(String),
    });
    expect(await counter('director_decisions_total', { outcome: 'keep' })).toBe(1);

    calls.splice(0).forEach((answer) => answer());
    await settle();
    expect(client.complete).toHaveBeenCalledTimes(3); // dropped steps never run
    await module.close();
  });

  it('returns at once, before any model call answers, and runs one step per conversation at a time', async () => {
    const { module, client, consider } = await setUp(4, 4);
    consider('c1');
    consider('c1'); // the same step again while the first is running: ignored, not queued
    consider('c2', 4); // not the director's turn
    await settle();
    expect(client.complete).toHaveBeenCalledTimes(1);
    await module.close();
  });

  it('a dropped step leaves the conversation free for its next due turn', async () => {
    const { module, client, calls, consider } = await setUp(1, 0);
    consider('c1');
    consider('c2'); // dropped: the slot is taken and there is no queue
    await settle();
    calls.shift()!();
    await settle();
    consider('c2', 10);
    await settle();
    expect(client.complete).toHaveBeenCalledTimes(2);
    await module.close();
  });
});
