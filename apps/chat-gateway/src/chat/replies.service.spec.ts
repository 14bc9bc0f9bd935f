import { MessageEntity } from '@echoloop/persistence';
import { ConflictException, NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ConversationsService } from '../conversations/conversations.service';
import { InFlightRegistry } from './in-flight-registry';
import { RepliesService } from './replies.service';
import { ReplyRelay } from './reply-relay';
import { TurnInputsCache } from '../conversations/turn-inputs-cache';
import { TurnRecorder } from './turn-recorder';
import type { TurnSink } from './turn-sink';
import { TurnRepository } from './turn.repository';

describe('RepliesService', () => {
  const repository = { ownedReply: jest.fn() };
  const registry = { stop: jest.fn(), resume: jest.fn() };
  const relay = { stop: jest.fn(), resume: jest.fn() };
  const recorder = { kept: jest.fn(), edited: jest.fn() };
  const guesses = { forget: jest.fn() };
  const conversations = { owned: jest.fn() };
  const sink = (key?: string): TurnSink => ({ key, delta: jest.fn(), done: jest.fn(), error: jest.fn() });
  let replies: RepliesService;

  beforeEach(async () => {
    for (const mock of [repository, registry, relay, recorder, guesses, conversations]) {
      Object.values(mock).forEach((fn) => fn.mockReset());
    }
    const moduleRef = await Test.createTestingModule({
      providers: [
        RepliesService,
        { provide: TurnRepository, useValue: repository },
        { provide: InFlightRegistry, useValue: registry },
        { provide: ReplyRelay, useValue: relay },
        { provide: TurnRecorder, useValue: recorder },
        { provide: TurnInputsCache, useValue: guesses },
        { provide: ConversationsService, useValue: conversations },
      ],
    }).compile();
    replies = moduleRef.get(RepliesService);
  });

  it("is a 404 for a reply that is not the user's, and keeps nothing", async () => {
    repository.ownedReply.mockResolvedValue(null);
    await expect(replies.select('u1', 'r1')).rejects.toBeInstanceOf(NotFoundException);
    expect(recorder.kept).not.toHaveBeenCalled();
  });

  it("keeping an alternative drops the conversation's guess, so the next turn's prompt is built from the store", async () => {
    const reply = Object.assign(new MessageEntity(), { id: 'r1', conversationId: 'c1' });
    repository.ownedReply.mockResolvedValue(reply);
    await replies.select('u1', 'r1');
    expect(recorder.kept).toHaveBeenCalledWith('u1', reply);
    expect(guesses.forget).toHaveBeenCalledWith('c1');
  });

  it.each(['streaming', 'error'] as const)(
    'refuses to edit a reply that is %s (409), and records nothing',
    async (status) => {
      repository.ownedReply.mockResolvedValue(Object.assign(new MessageEntity(), { id: 'r1', status }));
      await expect(replies.edit('u1', 'r1', 'Mine.')).rejects.toBeInstanceOf(ConflictException);
      expect(recorder.edited).not.toHaveBeenCalled();
    },
  );

  it('an edit is recorded and drops the guess, so the next prompt reads the edited text', async () => {
    const reply = Object.assign(new MessageEntity(), { id: 'r1', conversationId: 'c1', status: 'cancelled' });
    const edited = Object.assign(new MessageEntity(), { ...reply, content: 'Mine.' });
    repository.ownedReply.mockResolvedValue(reply);
    recorder.edited.mockResolvedValue(edited);
    await expect(replies.edit('u1', 'r1', 'Mine.')).resolves.toBe(edited);
    expect(recorder.edited).toHaveBeenCalledWith('u1', reply, 'Mine.');
    expect(guesses.forget).toHaveBeenCalledWith('c1');
  });

  it('stops a reply streaming here without asking other processes', async () => {
    registry.stop.mockReturnValue(true);
    await expect(replies.stop('u1', 'r1')).resolves.toBe(true);
    expect(relay.stop).not.toHaveBeenCalled();
  });

  it('asks the other processes to stop a reply that does not stream here', async () => {
    registry.stop.mockReturnValue(false);
    relay.stop.mockResolvedValue(false);
    await expect(replies.stop('u1', 'r1')).resolves.toBe(false);
    expect(relay.stop).toHaveBeenCalledWith('u1', 'r1');
  });

  it('a socket resumes the replies streaming here and elsewhere; an HTTP sink only those here', async () => {
    registry.resume.mockReturnValue([{ replyId: 'here' }]);
    relay.resume.mockResolvedValue([{ replyId: 'elsewhere' }]);
    await expect(replies.resume('u1', 'c1', sink('socket-1'))).resolves.toEqual([
      { replyId: 'here' },
      { replyId: 'elsewhere' },
    ]);
    expect(relay.resume).toHaveBeenCalledWith('u1', 'c1', 'socket-1');
    await expect(replies.resume('u1', 'c1', sink())).resolves.toEqual([{ replyId: 'here' }]);
    expect(relay.resume).toHaveBeenCalledTimes(1);
  });

  it("resumes nothing in a conversation that is not the user's", async () => {
    conversations.owned.mockRejectedValue(new NotFoundException());
    await expect(replies.resume('u1', 'c1', sink('socket-1'))).rejects.toBeInstanceOf(NotFoundException);
    expect(registry.resume).not.toHaveBeenCalled();
  });
});
