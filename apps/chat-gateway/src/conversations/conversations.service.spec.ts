import {
  CharacterEntity,
  ConversationEntity,
  type FeedbackEntity,
  MessageEntity,
  UserEntity,
  UserProfileEntity,
} from '@echoloop/persistence';
import { BadRequestException, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TurnInputsCache } from './turn-inputs-cache';
import { type ConversationsTransaction, ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';

const CARD = {
  spec: 'chara_card_v2',
  spec_version: '2.0',
  data: {
    name: 'Mira',
    description: '{{char}} listens.',
    personality: '',
    scenario: '',
    first_mes: 'Hi {{user}}, long day?',
    mes_example: '',
    alternate_greetings: ['{{char}} waves at {{user}}.'],
  },
};
const T0 = Date.parse('2026-11-01T10:00:00Z');

const character = Object.assign(new CharacterEntity(), { id: 'ch-1', name: 'Mira', card: CARD });
const user = Object.assign(new UserEntity(), { id: 'u-1', displayName: 'Sam' });
const profile = Object.assign(new UserProfileEntity(), {
  userId: 'u-1',
  inferenceEnabled: true,
  profile: {},
});

function message(id: string, role: 'user' | 'assistant', minute: number): MessageEntity {
  return Object.assign(new MessageEntity(), {
    id,
    conversationId: 'c-1',
    role,
    content: `${role} ${id}`,
    status: 'complete',
    selected: true,
    parentId: null,
    finishReason: role === 'assistant' ? 'stop' : null,
    promptTokens: null,
    completionTokens: null,
    checkpointId: null,
    createdAt: new Date(T0 + minute * 60_000),
  });
}

/** A transaction over jest mocks whose reads answer with what `found` holds; writes echo what they were given. */
function fakeTransaction(found: { character?: CharacterEntity | null; user?: UserEntity | null } = {}) {
  const tx = {
    character: jest.fn(async () => (found.character === undefined ? character : found.character)),
    user: jest.fn(async () => (found.user === undefined ? user : found.user)),
    insertConversation: jest.fn(async (row: { userId: string; characterId: string; title: string }) =>
      Object.assign(new ConversationEntity(), row, {
        id: 'c-new',
        createdAt: new Date(T0),
        updatedAt: new Date(T0),
        summary: null,
        summaryThrough: null,
        director: null,
      }),
    ),
    insertGreeting: jest.fn(async (conversationId: string, content: string) =>
      Object.assign(message('m-greeting', 'assistant', 0), { conversationId, content, finishReason: null }),
    ),
    profile: jest.fn(async () => profile),
  } satisfies ConversationsTransaction;
  return tx;
}

async function setUp(tx = fakeTransaction()) {
  const repository = {
    findOwned: jest.fn<Promise<ConversationEntity | null>, [string, string]>(),
    transaction: jest.fn(<T>(work: (t: ConversationsTransaction) => Promise<T>) => work(tx)),
    listByUser: jest.fn<Promise<ConversationEntity[]>, [string]>(),
    messagesBefore: jest.fn<Promise<MessageEntity[]>, [string, string | undefined, number]>(),
    feedbackOn: jest.fn<Promise<FeedbackEntity[]>, [string, string[]]>(async () => []),
    deleteOwned: jest.fn<Promise<boolean>, [string, string]>(),
  };
  const guesses = { seed: jest.fn() };
  const module = await Test.createTestingModule({
    providers: [
      ConversationsService,
      { provide: ConversationsRepository, useValue: repository },
      { provide: TurnInputsCache, useValue: guesses },
    ],
  }).compile();
  return { conversations: module.get(ConversationsService), repository, guesses, tx };
}

const notFound = { response: { error: { code: 'not_found', message: 'Conversation not found' } } };

describe('ConversationsService', () => {
  describe('ownership', () => {
    it("returns the user's own conversation", async () => {
      const { conversations, repository } = await setUp();
      const conversation = Object.assign(new ConversationEntity(), { id: 'c-1', userId: 'u-1' });
      repository.findOwned.mockResolvedValue(conversation);

      await expect(conversations.owned('u-1', 'c-1')).resolves.toBe(conversation);
      expect(repository.findOwned).toHaveBeenCalledWith('u-1', 'c-1');
    });

    it("is a 404, never a 403, for another user's or a missing conversation, and reads no messages", async () => {
      const { conversations, repository } = await setUp();
      repository.findOwned.mockResolvedValue(null);

      await expect(conversations.owned('u-2', 'c-1')).rejects.toThrow(NotFoundException);
      await expect(conversations.owned('u-2', 'c-1')).rejects.toMatchObject(notFound);
      await expect(
        conversations.messages('u-2', 'c-1', { limit: 50, before: undefined }),
      ).rejects.toMatchObject(notFound);
      expect(repository.messagesBefore).not.toHaveBeenCalled();
    });

    it('removes only what the user owns; nothing deleted is the same 404', async () => {
      const { conversations, repository } = await setUp();
      repository.deleteOwned.mockResolvedValueOnce(true).mockResolvedValueOnce(false);

      await expect(conversations.remove('u-1', 'c-1')).resolves.toBeUndefined();
      await expect(conversations.remove('u-2', 'c-1')).rejects.toMatchObject(notFound);
      expect(repository.deleteOwned).toHaveBeenLastCalledWith('u-2', 'c-1');
    });
  });

  describe('create', () => {
    it('opens with the greeting, macros filled in, and seeds the first turn with what it read', async () => {
      const { conversations, guesses, tx } = await setUp();

      const created = await conversations.create('u-1', 'ch-1');

      expect(tx.insertConversation).toHaveBeenCalledWith({
        userId: 'u-1',
        characterId: 'ch-1',
        title: 'Mira',
      });
      expect(tx.insertGreeting).toHaveBeenCalledWith('c-new', 'Hi Sam, long day?');
      expect(created).toMatchObject({
        id: 'c-new',
        characterId: 'ch-1',
        title: 'Mira',
        createdAt: new Date(T0),
        greeting: { id: 'm-greeting', role: 'assistant', content: 'Hi Sam, long day?', usage: null },
        greetingCount: 2,
      });
      expect(created.greeting).not.toHaveProperty('conversationId');
      expect(guesses.seed).toHaveBeenCalledTimes(1);
      const [seed] = guesses.seed.mock.calls[0];
      expect(seed).toEqual({
        conversation: await tx.insertConversation.mock.results[0]!.value,
        greeting: await tx.insertGreeting.mock.results[0]!.value,
        card: CARD,
        userName: 'Sam',
        profile,
      });
      expect(tx.profile).toHaveBeenCalledWith('u-1');
    });

    it('uses an alternate greeting by index', async () => {
      const { conversations, tx } = await setUp();

      await conversations.create('u-1', 'ch-1', 1);

      expect(tx.insertGreeting).toHaveBeenCalledWith('c-new', 'Mira waves at Sam.');
    });

    it('refuses a greeting index past the last with 400 no_such_greeting, before writing anything', async () => {
      const { conversations, guesses, tx } = await setUp();

      const attempt = conversations.create('u-1', 'ch-1', 2);

      await expect(attempt).rejects.toThrow(BadRequestException);
      await expect(attempt).rejects.toMatchObject({
        response: { error: { code: 'no_such_greeting', message: 'This character has 2 greeting(s)' } },
      });
      expect(tx.insertConversation).not.toHaveBeenCalled();
      expect(tx.insertGreeting).not.toHaveBeenCalled();
      expect(guesses.seed).not.toHaveBeenCalled();
    });

    it('is a 404 for an unknown character and a 401 for a deleted account', async () => {
      const missingCharacter = await setUp(fakeTransaction({ character: null }));
      await expect(missingCharacter.conversations.create('u-1', 'ch-x')).rejects.toMatchObject({
        response: { error: { code: 'not_found', message: 'Character not found' } },
      });

      const missingUser = await setUp(fakeTransaction({ user: null }));
      await expect(missingUser.conversations.create('u-1', 'ch-1')).rejects.toThrow(UnauthorizedException);
      expect(missingUser.tx.insertConversation).not.toHaveBeenCalled();
      expect(missingUser.guesses.seed).not.toHaveBeenCalled();
    });

    it('seeds nothing when the transaction does not commit', async () => {
      const { conversations, repository, guesses, tx } = await setUp();
      repository.transaction.mockImplementation(async (work) => {
        await work(tx);
        throw new Error('commit failed');
      });

      await expect(conversations.create('u-1', 'ch-1')).rejects.toThrow('commit failed');
      expect(guesses.seed).not.toHaveBeenCalled();
    });
  });

  describe('messages', () => {
    const owned = Object.assign(new ConversationEntity(), { id: 'c-1', userId: 'u-1' });

    it('asks for one more than the page: a page of the older ones, oldest first, with where to go on', async () => {
      const { conversations, repository } = await setUp();
      repository.findOwned.mockResolvedValue(owned);
      // Newest first, as the repository answers: 3 asked (limit + 1), 3 found, so more follow.
      repository.messagesBefore.mockResolvedValue([
        message('m4', 'assistant', 4),
        message('m3', 'user', 3),
        message('m2', 'assistant', 2),
      ]);

      const page = await conversations.messages('u-1', 'c-1', { limit: 2, before: 'm5' });

      expect(repository.messagesBefore).toHaveBeenCalledWith('c-1', 'm5', 3);
      expect(page.items.map((m) => m.id)).toEqual(['m3', 'm4']);
      expect(page.nextBefore).toBe('m3');
    });

    it('has no next page when the repository found no more than the page', async () => {
      const { conversations, repository } = await setUp();
      repository.findOwned.mockResolvedValue(owned);
      repository.messagesBefore.mockResolvedValue([message('m2', 'assistant', 2), message('m1', 'user', 1)]);

      const page = await conversations.messages('u-1', 'c-1', { limit: 2, before: undefined });

      expect(repository.messagesBefore).toHaveBeenCalledWith('c-1', undefined, 3);
      expect(page.items.map((m) => m.id)).toEqual(['m1', 'm2']);
      expect(page.nextBefore).toBeNull();
    });

    it("shows the user's own thumbs and stars on the replies, and null where there are none", async () => {
      const { conversations, repository } = await setUp();
      repository.findOwned.mockResolvedValue(owned);
      repository.messagesBefore.mockResolvedValue([
        message('a3', 'assistant', 6),
        message('a2', 'assistant', 4),
        message('a1', 'assistant', 2),
        message('u1', 'user', 1),
      ]);
      repository.feedbackOn.mockResolvedValue([
        { messageId: 'a1', thumb: 1, stars: null },
        { messageId: 'a2', thumb: -1, stars: 4 },
      ] as FeedbackEntity[]);

      const page = await conversations.messages('u-1', 'c-1', { limit: 10, before: undefined });

      expect(repository.feedbackOn).toHaveBeenCalledWith('u-1', ['a1', 'a2', 'a3']);
      expect(Object.fromEntries(page.items.map((m) => [m.id, m.feedback]))).toEqual({
        u1: null,
        a1: { thumb: 'up', stars: null },
        a2: { thumb: 'down', stars: 4 },
        a3: null,
      });
    });

    it('reads no feedback when the page has no replies', async () => {
      const { conversations, repository } = await setUp();
      repository.findOwned.mockResolvedValue(owned);
      repository.messagesBefore.mockResolvedValue([message('u1', 'user', 1)]);

      const page = await conversations.messages('u-1', 'c-1', { limit: 10, before: undefined });

      expect(repository.feedbackOn).not.toHaveBeenCalled();
      expect(page.items).toEqual([expect.objectContaining({ id: 'u1', feedback: null })]);
    });
  });

  it('lists the conversations as the repository orders them', async () => {
    const { conversations, repository } = await setUp();
    const older = new Date(T0);
    const newer = new Date(T0 + 60_000);
    repository.listByUser.mockResolvedValue([
      Object.assign(new ConversationEntity(), {
        id: 'c-2',
        userId: 'u-1',
        characterId: 'ch-1',
        title: 'Mira',
        summary: 'secret',
        updatedAt: older,
      }),
      Object.assign(new ConversationEntity(), {
        id: 'c-1',
        userId: 'u-1',
        characterId: 'ch-2',
        title: 'Juno',
        updatedAt: newer,
      }),
    ]);

    await expect(conversations.list('u-1')).resolves.toEqual({
      items: [
        { id: 'c-2', characterId: 'ch-1', title: 'Mira', updatedAt: older },
        { id: 'c-1', characterId: 'ch-2', title: 'Juno', updatedAt: newer },
      ],
    });
    expect(repository.listByUser).toHaveBeenCalledWith('u-1');
  });
});
