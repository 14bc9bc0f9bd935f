import type { CheckpointEntity } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { MemoryService, type OverflowedTurns } from './memory.service';

const T0 = Date.parse('2026-11-01T10:00:00Z');
const checkpoint = { id: 'base', modelName: 'fake' } as CheckpointEntity;

async function setUp(reply: string) {
  const complete = jest.fn(async () => ({ text: reply, finishReason: 'stop', usage: null }));
  const conversations = { storeSummary: jest.fn(async () => undefined) };
  const logger = { warn: jest.fn() };
  const module = await Test.createTestingModule({
    providers: [
      MemoryService,
      { provide: ConversationsRepository, useValue: conversations },
      { provide: CheckpointsService, useValue: { clientFor: () => ({ complete }) } },
      { provide: PinoLogger, useValue: logger },
      { provide: MetricsService, useValue: new MetricsService('test') },
    ],
  }).compile();
  return { memory: module.get(MemoryService), conversations, complete, logger };
}

const overflow = (summaryThrough: Date | null): OverflowedTurns => ({
  conversationId: 'c-1',
  dropped: [
    { role: 'user', content: 'I adopted a cat', createdAt: new Date(T0) },
    { role: 'assistant', content: 'Lovely!', createdAt: new Date(T0 + 60_000) },
  ],
  previousSummary: null,
  summaryThrough,
});

describe('MemoryService', () => {
  it('stores the summary, without its think block, through the last turn it covers', async () => {
    const { memory, conversations } = await setUp('<think>hmm</think> The user adopted a cat. ');

    memory.remember(overflow(null), checkpoint);
    await memory.settled('c-1');

    expect(conversations.storeSummary).toHaveBeenCalledWith(
      'c-1',
      'The user adopted a cat.',
      new Date(T0 + 60_000),
    );
  });

  it('stores nothing when the model says nothing', async () => {
    const { memory, conversations, complete, logger } = await setUp('<think>hmm</think>  ');

    memory.remember(overflow(null), checkpoint);
    await memory.settled('c-1');

    expect(complete).toHaveBeenCalledTimes(1);
    expect(conversations.storeSummary).not.toHaveBeenCalled();
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('does not summarize again turns the summary already covers', async () => {
    const { memory, conversations, complete } = await setUp('Anything.');

    memory.remember(overflow(new Date(T0 + 60_000)), checkpoint);
    await memory.settled('c-1');

    expect(complete).not.toHaveBeenCalled();
    expect(conversations.storeSummary).not.toHaveBeenCalled();
  });
});
