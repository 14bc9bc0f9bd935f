import type { TurnInputs } from '../conversations/turn-inputs';
import type { ReplyCommit } from './reply-commit.sql';
import { chatTurnCompletedV1 } from '@echoloop/contracts';
import { ConversationEntity, MessageEntity, UserProfileEntity } from '@echoloop/persistence';
import { OutboxRelay } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import type { Route } from '../experiments/experiment-router';
import { PersonaService } from '../persona/persona.service';
import type { StreamedReply } from './reply-streamer';
import type { TurnContext } from './turn-context';
import { TurnRecorder } from './turn-recorder';
import { TurnRepository } from './turn.repository';

const USER = '8d6f4f7e-3b1a-4c52-9a0e-1f2d3c4b5a69';
const CONVERSATION = '2b1c0d9e-8f7a-4b6c-9d5e-4f3a2b1c0d9e';
const MESSAGE = '5c4b3a29-1807-4f6e-8d5c-4b3a29180706';
const REPLY = '9e8d7c6b-5a49-4382-8170-6f5e4d3c2b1a';
const STORED_PROFILE = { schemaVersion: 1, tone: { value: 'warm' } };
const MERGED_PROFILE = { schemaVersion: 1, tone: { value: 'warm' }, pace: { value: 'slow' } };

const inputs: TurnInputs = {
  conversation: Object.assign(new ConversationEntity(), {
    id: CONVERSATION,
    userId: USER,
    characterId: '3f2e1d0c-9b8a-4766-8554-433221100fed',
  }),
  userMessage: Object.assign(new MessageEntity(), {
    id: MESSAGE,
    conversationId: CONVERSATION,
    content: 'I had a long day',
    createdAt: new Date('2026-11-26T10:00:00.000Z'),
  }),
  created: true,
  history: [],
  userTurn: 3,
  card: {},
  userName: 'Sam',
  profile: Object.assign(new UserProfileEntity(), {
    userId: USER,
    profile: STORED_PROFILE,
    inferenceEnabled: true,
  }),
};

const context = {
  safety: { flagged: false, categories: [] },
  persona: {
    enabled: true,
    observations: [{ field: 'pace' }],
    shifted: false,
    guidance: '',
    snapshot: {},
    merged: MERGED_PROFILE,
  },
  history: [{ role: 'assistant', content: 'Hi Sam' }],
} as unknown as TurnContext;

const streamed: StreamedReply = {
  conversationId: CONVERSATION,
  replyId: REPLY,
  content: 'That sounds exhausting.',
  reasoning: null,
  finishReason: 'stop',
  usage: { promptTokens: 40, completionTokens: 5 },
  latencyMs: { ttft: 120, total: 400 },
};

const route = { checkpoint: { id: 'base' }, experimentId: null, armId: null } as unknown as Route;

describe('TurnRecorder', () => {
  let recorder: TurnRecorder;
  let commitReply: jest.Mock;
  let mergeNow: jest.Mock;
  let wake: jest.Mock;

  beforeEach(async () => {
    commitReply = jest.fn(async (reply: { id: string }) => ({
      saved: Object.assign(new MessageEntity(), { id: reply.id }),
      userTurnsSinceDeep: 4,
    }));
    mergeNow = jest.fn(async () => 7);
    wake = jest.fn();
    const moduleRef = await Test.createTestingModule({
      providers: [
        TurnRecorder,
        { provide: TurnRepository, useValue: { commitReply } },
        { provide: PersonaService, useValue: { mergeNow } },
        { provide: OutboxRelay, useValue: { wake } },
      ],
    }).compile();
    recorder = moduleRef.get(TurnRecorder);
  });

  const commitOf = (): ReplyCommit => commitReply.mock.calls[0]![1] as ReplyCommit;

  it('commits the reply with a valid event, its slot and the merged profile against the one read, then wakes the relay', async () => {
    const recorded = await recorder.reply(inputs, context, streamed, route, false, 'slot-1');
    expect(commitReply).toHaveBeenCalledTimes(1);
    expect(commitReply.mock.calls[0]![0]).toMatchObject({ id: REPLY, parentId: MESSAGE, status: 'complete' });
    const commit = commitOf();
    expect(commit).toMatchObject({
      userId: USER,
      slotId: 'slot-1',
      createdAtPath: ['payload', 'assistantMessage', 'createdAt'],
      profile: { merged: MERGED_PROFILE, seen: STORED_PROFILE },
    });
    const event = chatTurnCompletedV1.schema.parse(JSON.parse(commit.event.payload));
    // The path the statement fills with the stored time exists in the event.
    expect(event.payload.assistantMessage.createdAt).toEqual(expect.any(String));
    expect(event.payload).toMatchObject({ turnId: REPLY, userId: USER, conversationId: CONVERSATION });
    expect(commit.event).toMatchObject({ topic: chatTurnCompletedV1.topic, key: CONVERSATION });
    expect(wake).toHaveBeenCalled();
    expect(mergeNow).not.toHaveBeenCalled();
    expect(recorded.userTurnsSinceDeep).toBe(4);
  });

  it('merges the observations again under the row lock when the profile changed since the turn read it', async () => {
    commitReply.mockImplementationOnce(async (reply: { id: string }) => ({
      saved: Object.assign(new MessageEntity(), { id: reply.id }),
      userTurnsSinceDeep: null,
    }));
    const recorded = await recorder.reply(inputs, context, streamed, route, false, 'slot-1');
    expect(mergeNow).toHaveBeenCalledWith(USER, context.persona.observations);
    expect(recorded.userTurnsSinceDeep).toBe(7);
  });

  it('a regenerated reply or inference off touches no profile', async () => {
    await recorder.reply(inputs, context, streamed, route, true, undefined);
    expect(commitOf().profile).toBeNull();
    const off = { ...context, persona: { ...context.persona, enabled: false } } as TurnContext;
    const recorded = await recorder.reply(inputs, off, streamed, route, false, undefined);
    expect((commitReply.mock.calls[1]![1] as ReplyCommit).profile).toBeNull();
    expect(mergeNow).not.toHaveBeenCalled();
    expect(recorded.userTurnsSinceDeep).toBe(4);
  });

  it('a stopped reply is stored as cancelled', async () => {
    await recorder.reply(inputs, context, { ...streamed, finishReason: 'cancelled' }, route, false, 's');
    expect(commitReply.mock.calls[0]![0]).toMatchObject({ status: 'cancelled', finishReason: 'cancelled' });
  });
});
