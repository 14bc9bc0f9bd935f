import type { TurnInputs } from '../conversations/turn-inputs';
import { emptyProfile, extractFastFeatures, mergeObservations } from '@echoloop/persona';
import {
  CheckpointEntity,
  ConversationEntity,
  MessageEntity,
  UserProfileEntity,
} from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { DirectorService } from '../director/director.service';
import { GATEWAY_ENV, gatewayEnv } from '../env';
import { PersonaService } from '../persona/persona.service';
import { ProfilesRepository } from '../persona/profiles.repository';
import { TurnContextBuilder } from './turn-context';

const card = {
  spec: 'chara_card_v2',
  spec_version: '2.0',
  data: { name: 'Mira', description: '{{char}} listens to {{user}}.', first_mes: 'Hi {{user}}!' },
};
const checkpoint = Object.assign(new CheckpointEntity(), { id: 'base', contextTokens: 4096, decoding: {} });
const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 12, minute));
/** The profile the last turn merged, as it stays in memory for the next turn's guess. */
const merged = mergeObservations(
  emptyProfile(),
  extractFastFeatures({ id: 'm-2', text: 'lol yeah 😂 ngl', createdAt: at(3) }),
  at(3),
);

/** A turn's inputs as the statement returns them: every object new, as read from the database. */
function stored(): TurnInputs {
  return {
    conversation: Object.assign(new ConversationEntity(), {
      id: 'c-1',
      userId: 'u-1',
      characterId: 'ch-1',
      summary: 'They talked about rent.',
      summaryThrough: at(0),
      // Not a client's conversation (the OpenAI-compatible endpoint's): the columns as stored for one of ours.
      clientName: null,
      clientSystemPrompt: null,
      clientSpeakers: null,
      clientPersonaGuidance: false,
      director: {
        turn: 2,
        decision: 'deepen',
        note: 'Ask about the landlord.',
        decidedAt: at(4).toISOString(),
      },
    }),
    userMessage: Object.assign(new MessageEntity(), {
      id: 'm-3',
      conversationId: 'c-1',
      role: 'user',
      content: 'honestly im so tired rn 😅',
      createdAt: at(5),
    }),
    created: true,
    history: [
      { role: 'user', content: 'My landlord wants more rent.', createdAt: at(1) },
      { role: 'assistant', content: 'That sounds stressful.', createdAt: at(2) },
      { role: 'user', content: 'lol yeah 😂 ngl', createdAt: at(3) },
      { role: 'assistant', content: 'What will you do?', createdAt: at(4) },
    ],
    userTurn: 3,
    card: asStored(card),
    userName: 'Sam',
    profile: Object.assign(new UserProfileEntity(), {
      userId: 'u-1',
      inferenceEnabled: true,
      profile: asStored(merged),
    }),
  };
}

describe('TurnContextBuilder.sameContext', () => {
  let contexts: TurnContextBuilder;

  beforeAll(async () => {
    const module = await Test.createTestingModule({
      providers: [
        TurnContextBuilder,
        PersonaService,
        DirectorService,
        { provide: GATEWAY_ENV, useValue: gatewayEnv.parse({}) },
        { provide: ProfilesRepository, useValue: {} },
        { provide: ConversationsRepository, useValue: {} },
        { provide: CheckpointsService, useValue: {} },
        { provide: PinoLogger, useValue: { warn: jest.fn() } },
        { provide: MetricsService, useValue: new MetricsService('test') },
      ],
    }).compile();
    contexts = module.get(TurnContextBuilder);
  });

  const build = (inputs: TurnInputs) =>
    contexts.build(inputs, checkpoint, 256, { flagged: false, categories: [] });

  it('takes a guess that differs only in the message’s time, and both build the same prompt', () => {
    const guess = stored();
    // The guess's profile is the one the last turn merged, its keys in their own order, not the database's.
    guess.profile = Object.assign(new UserProfileEntity(), { inferenceEnabled: true, profile: merged });
    guess.userMessage.createdAt = new Date(at(5).getTime() - 3);
    expect(contexts.sameContext(guess, stored())).toBe(true);
    const [fromGuess, fromStored] = [build(guess), build(stored())];
    expect(fromGuess.prompt).toEqual(fromStored.prompt);
    expect(fromGuess.persona.guidance).toBe(fromStored.persona.guidance);
    expect(fromGuess.dropped).toEqual(fromStored.dropped);
  });

  it("adds the persona's guidance to a client's prompt only when the client's key asks for it", () => {
    const systemText = (inputs: TurnInputs) =>
      build(inputs)
        .prompt.filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n');
    // A user the fast path knows well enough to guide on: the same sad message, several turns running.
    const sad = [1, 2, 3, 4, 5].reduce(
      (profile, minute) =>
        mergeObservations(
          profile,
          extractFastFeatures({
            id: `s-${minute}`,
            text: 'I feel so sad and alone tonight.',
            createdAt: at(minute),
          }),
          at(minute),
        ),
      emptyProfile(),
    );
    const known = () => {
      const inputs = stored();
      inputs.profile = Object.assign(new UserProfileEntity(), { inferenceEnabled: true, profile: sad });
      return inputs;
    };
    const { guidance } = build(known()).persona;
    expect(guidance.length).toBeGreaterThan(0);
    expect(systemText(known())).toContain(guidance);
    const client = (personaGuidance: boolean) => {
      const inputs = known();
      Object.assign(inputs.conversation, {
        clientName: 'SillyTavern',
        clientSystemPrompt: 'You are Mira.',
        clientPersonaGuidance: personaGuidance,
      });
      return inputs;
    };
    expect(systemText(client(false))).not.toContain(guidance);
    expect(systemText(client(true))).toContain(guidance);
    expect(systemText(client(true))).toContain('You are Mira.');
  });

  const changes: [string, (inputs: TurnInputs) => void][] = [
    ['the message id', (i) => (i.userMessage.id = 'm-other')],
    ['the message text', (i) => (i.userMessage.content = 'hello')],
    ['the user turn', (i) => (i.userTurn = 4)],
    ['the user’s name', (i) => (i.userName = 'Samantha')],
    ['the summary', (i) => (i.conversation.summary = 'They talked about cats.')],
    [
      'the director’s note',
      (i) => i.conversation.director && (i.conversation.director.note = 'Change topic.'),
    ],
    ['no director note', (i) => (i.conversation.director = null)],
    ['a message of history more', (i) => i.history.push({ role: 'user', content: 'hi', createdAt: at(4) })],
    ['a history message’s text', (i) => i.history[3] && (i.history[3].content = 'Edited.')],
    ['a history message’s time', (i) => i.history[0] && (i.history[0].createdAt = at(0))],
    ['the card', (i) => ((i.card as typeof card).data.name = 'Nora')],
    ['the profile', (i) => i.profile && (i.profile.profile = {})],
    ['inference turned off', (i) => i.profile && (i.profile.inferenceEnabled = false)],
    ['no profile', (i) => (i.profile = null)],
  ];

  it.each(changes)('refuses a guess that differs in %s', (_, change) => {
    const guess = stored();
    change(guess);
    expect(contexts.sameContext(guess, stored())).toBe(false);
    expect(contexts.sameContext(stored(), guess)).toBe(false);
  });
});

/** A value as read back from a jsonb column: a new object, its keys in another order (here, reversed). */
function asStored<T>(value: T): T {
  if (Array.isArray(value)) return value.map(asStored) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, v]) => [key, asStored(v)]),
  ) as T;
}
