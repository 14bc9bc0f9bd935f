import { CLOCK, MetricsService } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { GATEWAY_ENV, gatewayEnv } from '../env';
import { ConversationsRepository } from './conversations.repository';
import { RetentionSweeper } from './retention-sweeper';

const NOW = new Date('2026-11-24T06:00:00Z');

async function setUp(batches: number[], env: Record<string, string> = { CONVERSATION_TTL_DAYS: '30' }) {
  const conversations = { deleteInactiveBefore: jest.fn(async () => batches.shift() ?? 0) };
  const logger = { warn: jest.fn() };
  const module = await Test.createTestingModule({
    providers: [
      RetentionSweeper,
      { provide: ConversationsRepository, useValue: conversations },
      { provide: GATEWAY_ENV, useValue: gatewayEnv.parse(env) },
      { provide: CLOCK, useValue: () => NOW },
      { provide: PinoLogger, useValue: logger },
      { provide: MetricsService, useValue: new MetricsService('test') },
    ],
  }).compile();
  return { sweeper: module.get(RetentionSweeper), conversations, logger };
}

describe('RetentionSweeper', () => {
  it('deletes in batches of 500 past the TTL until a batch comes back short', async () => {
    const { sweeper, conversations } = await setUp([500, 500, 12]);

    await expect(sweeper.sweep()).resolves.toBe(1012);

    const cutoff = new Date(NOW.getTime() - 30 * 86_400_000);
    expect(conversations.deleteInactiveBefore.mock.calls).toEqual([
      [cutoff, 500],
      [cutoff, 500],
      [cutoff, 500],
    ]);
  });

  it('deletes nothing without a TTL', async () => {
    const { sweeper, conversations } = await setUp([500], {});

    await expect(sweeper.sweep()).resolves.toBe(0);
    expect(conversations.deleteInactiveBefore).not.toHaveBeenCalled();
  });

  it('logs a failed sweep and answers 0, for the next one to retry', async () => {
    const { sweeper, conversations, logger } = await setUp([]);
    conversations.deleteInactiveBefore.mockRejectedValueOnce(new Error('database down'));

    await expect(sweeper.sweep()).resolves.toBe(0);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.anything(),
      'retention sweep failed; the next one retries',
    );
    await expect(sweeper.sweep()).resolves.toBe(0);
    expect(conversations.deleteInactiveBefore).toHaveBeenCalledTimes(2);
  });
});
