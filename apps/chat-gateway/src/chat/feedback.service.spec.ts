import type { FeedbackEntity, MessageEntity } from '@echoloop/persistence';
import { OutboxRelay } from '@echoloop/platform';
import { NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { type FeedbackChange, type FeedbackFields, FeedbackRepository } from './feedback.repository';
import { FeedbackService } from './feedback.service';
import { RepliesService } from './replies.service';

const REPLY = {
  id: '7c1f2a4e-1111-4a4a-9a9a-000000000001',
  conversationId: '7c1f2a4e-1111-4a4a-9a9a-000000000002',
  checkpointId: 'base',
} as MessageEntity;
const USER = '7c1f2a4e-1111-4a4a-9a9a-000000000003';

describe('FeedbackService', () => {
  const replies = { ownedReply: jest.fn() };
  const relay = { wake: jest.fn() };
  let stored: FeedbackFields;
  let events: unknown[];
  let service: FeedbackService;

  beforeEach(async () => {
    stored = { thumb: null, stars: null, comment: null, tags: [] };
    events = [];
    replies.ownedReply.mockReset().mockResolvedValue(REPLY);
    relay.wake.mockReset();
    // The repository's contract: the change sees the stored row and its result is what is stored.
    const repository = {
      change: jest.fn(async (_messageId: string, _userId: string, change: FeedbackChange) => {
        const { next, event } = change(stored);
        stored = next;
        events.push(JSON.parse(event.payload));
        return { ...next, updatedAt: new Date('2026-11-28T00:00:00Z') } as FeedbackEntity;
      }),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [
        FeedbackService,
        { provide: FeedbackRepository, useValue: repository },
        { provide: RepliesService, useValue: replies },
        { provide: OutboxRelay, useValue: relay },
      ],
    }).compile();
    service = moduleRef.get(FeedbackService);
  });

  it('changes only the fields given, and null takes one back', async () => {
    await service.record(USER, REPLY.id, { thumb: 'up', stars: 4, tags: ['kind'] });
    const after = await service.record(USER, REPLY.id, { comment: 'lovely', stars: null });
    expect(after).toMatchObject({
      messageId: REPLY.id,
      thumb: 'up',
      stars: null,
      comment: 'lovely',
      tags: ['kind'],
    });
    expect(stored).toEqual({ thumb: 1, stars: null, comment: 'lovely', tags: ['kind'] });
  });

  it('sends the whole current feedback as its event, and wakes the relay', async () => {
    await service.record(USER, REPLY.id, { thumb: 'down' });
    await service.record(USER, REPLY.id, { stars: 2 });
    expect(events.at(-1)).toMatchObject({
      payload: {
        kind: 'rating',
        conversationId: REPLY.conversationId,
        userId: USER,
        turnId: REPLY.id,
        checkpointId: 'base',
        thumb: 'down',
        stars: 2,
        comment: null,
        tags: [],
      },
    });
    expect(relay.wake).toHaveBeenCalledTimes(2);
  });

  it('an empty comment clears it', async () => {
    stored.comment = 'old';
    await service.record(USER, REPLY.id, { comment: '' });
    expect(stored.comment).toBeNull();
  });

  it("stores nothing on a reply that is not the user's", async () => {
    replies.ownedReply.mockRejectedValue(new NotFoundException());
    await expect(service.record(USER, REPLY.id, { thumb: 'up' })).rejects.toBeInstanceOf(NotFoundException);
    expect(events).toEqual([]);
    expect(relay.wake).not.toHaveBeenCalled();
  });
});
