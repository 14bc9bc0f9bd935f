import type { TurnInputs } from '../conversations/turn-inputs';
import type { TurnTarget } from './turn-inputs.sql';
import { ModelError } from '@echoloop/llm';
import { ConversationEntity, MessageEntity } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { ConversationsService } from '../conversations/conversations.service';
import { DirectorService } from '../director/director.service';
import { GATEWAY_ENV, gatewayEnv } from '../env';
import { ExperimentRouter } from '../experiments/experiment-router';
import { LimitsService } from '../limits/limits.service';
import { StreamSlots } from './stream-slots';
import { MemoryService } from '../memory/memory.service';
import { DeepExtractionService } from '../persona/deep-extraction.service';
import { InFlightRegistry } from './in-flight-registry';
import { ReplyRelay } from './reply-relay';
import { AfterReply } from './after-reply';
import { ReplyRunner } from './reply-runner';
import { ReplyStreamer, type StreamRequest } from './reply-streamer';
import { ResendReplies } from './resend-replies';
import { TurnContextBuilder } from './turn-context';
import { TurnInputsCache } from '../conversations/turn-inputs-cache';
import { TurnRecorder } from './turn-recorder';
import type { TurnSink } from './turn-sink';
import { TurnRepository } from './turn.repository';
import { TurnService } from './turn.service';

const USER = '8d6f4f7e-3b1a-4c52-9a0e-1f2d3c4b5a69';
const CONVERSATION = '2b1c0d9e-8f7a-4b6c-9d5e-4f3a2b1c0d9e';

function inputs(messageId = 'm-1', created = true): TurnInputs {
  return {
    conversation: Object.assign(new ConversationEntity(), {
      id: CONVERSATION,
      userId: USER,
      characterId: 'c-1',
      summary: null,
      summaryThrough: null,
      director: null,
    }),
    userMessage: Object.assign(new MessageEntity(), {
      id: messageId,
      conversationId: CONVERSATION,
      role: 'user',
      content: 'hello',
      clientMessageId: 'k1',
      createdAt: new Date(),
    }),
    created,
    history: [],
    userTurn: 1,
    card: {},
    userName: 'Sam',
    profile: null,
  };
}

function collectingSink() {
  const events: { done: unknown[]; errors: unknown[] } = { done: [], errors: [] };
  const sink: TurnSink = { delta: () => undefined, done: () => undefined, error: () => undefined };
  const settled = new Promise<void>((resolve) => {
    sink.done = (event) => {
      events.done.push(event);
      resolve();
    };
    sink.error = (event) => {
      events.errors.push(event);
      resolve();
    };
  });
  return { sink, events, settled };
}

/** What the prompt builder gives, per test: by default the same for a guess and the real inputs. */
let promptFor: (inputs: TurnInputs) => unknown[] = () => [];
/** Whether the builder finds a guess's inputs the same as the stored ones: by default, when their prompts are. */
const samePrompt = (guess: TurnInputs, stored: TurnInputs) =>
  JSON.stringify(promptFor(guess)) === JSON.stringify(promptFor(stored));
let sameInputs = samePrompt;

function reply(replyId: string, content = 'Hi Sam') {
  return {
    conversationId: CONVERSATION,
    replyId,
    content,
    reasoning: null,
    finishReason: 'stop',
    usage: { promptTokens: 5, completionTokens: 2 },
    latencyMs: { ttft: 1, total: 2 },
  };
}

function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('TurnService', () => {
  const repository = { inputs: jest.fn(), latestReply: jest.fn(), ownedReply: jest.fn() };
  const limits = { checkStreams: jest.fn(), gate: jest.fn(), refusal: jest.fn() };
  const slots = { giveBack: jest.fn() };
  const streamer = { stream: jest.fn() };
  const recorder = { reply: jest.fn(), kept: jest.fn() };
  const router = { route: jest.fn() };
  const relay = { stop: jest.fn(), resume: jest.fn(), join: jest.fn() };
  const checkpoint = { id: 'base', decoding: {}, contextTokens: 4096 };
  let turns: TurnService;

  beforeEach(async () => {
    for (const mock of [repository, limits, slots, streamer, recorder, router, relay]) {
      Object.values(mock).forEach((fn) => fn.mockReset());
    }
    relay.join.mockResolvedValue(null);
    router.route.mockResolvedValue({ checkpoint, experimentId: null, armId: null });
    promptFor = () => [];
    sameInputs = samePrompt;
    recorder.reply.mockResolvedValue({
      userTurnsSinceDeep: null,
      reply: { createdAt: new Date(), content: 'hi' },
    });
    const moduleRef = await Test.createTestingModule({
      providers: [
        TurnService,
        InFlightRegistry,
        ResendReplies,
        ReplyRunner,
        AfterReply,
        TurnInputsCache,
        { provide: GATEWAY_ENV, useValue: gatewayEnv.parse({}) },
        {
          provide: TurnRepository,
          // The gate is the database's: here it always lets the turn through.
          useValue: { ...repository, gatedInputs: (...args: unknown[]) => repository.inputs(...args) },
        },
        { provide: LimitsService, useValue: limits },
        { provide: StreamSlots, useValue: slots },
        { provide: ReplyRelay, useValue: relay },
        { provide: ReplyStreamer, useValue: streamer },
        { provide: TurnRecorder, useValue: recorder },
        { provide: ExperimentRouter, useValue: router },
        {
          provide: TurnContextBuilder,
          useValue: {
            build: (built: TurnInputs) => ({
              safety: { categories: [] },
              persona: { enabled: true },
              prompt: promptFor(built),
              history: [],
            }),
            sameContext: (guess: TurnInputs, stored: TurnInputs) => sameInputs(guess, stored),
            observeUsage: () => undefined,
          },
        },
        { provide: ConversationsService, useValue: { owned: jest.fn() } },
        { provide: MemoryService, useValue: { remember: jest.fn() } },
        { provide: DeepExtractionService, useValue: { schedule: jest.fn() } },
        { provide: DirectorService, useValue: { consider: jest.fn() } },
        { provide: PinoLogger, useValue: { error: jest.fn(), warn: jest.fn() } },
        { provide: MetricsService, useValue: new MetricsService('test') },
      ],
    }).compile();
    turns = moduleRef.get(TurnService);
  });

  const send = (sink: TurnSink) =>
    turns.send(USER, { conversationId: CONVERSATION, content: 'hello', clientMessageId: 'k1' }, sink);

  it('stores, reads and streams in one statement before the model call, then records and says done', async () => {
    repository.inputs.mockResolvedValueOnce(inputs());
    streamer.stream.mockImplementation(async ({ replyId }: StreamRequest) => ({
      conversationId: CONVERSATION,
      replyId,
      content: 'Hi Sam',
      reasoning: null,
      finishReason: 'stop',
      usage: { promptTokens: 5, completionTokens: 2 },
      latencyMs: { ttft: 1, total: 2 },
    }));
    const { sink, events, settled } = collectingSink();
    const ack = await send(sink);
    await settled;
    expect(repository.inputs).toHaveBeenCalledTimes(1);
    expect((repository.inputs.mock.calls[0] as [string, TurnTarget])[1]).toMatchObject({ kind: 'send' });
    // The shared limits (streams, rate, daily quota) are taken in that same statement.
    expect(limits.gate).toHaveBeenCalledTimes(1);
    expect(ack).toEqual({ userMessageId: 'm-1', replyId: expect.any(String) });
    expect(recorder.reply).toHaveBeenCalledTimes(1);
    expect(events.done).toEqual([
      expect.objectContaining({ replyId: ack.replyId, content: 'Hi Sam', checkpointId: 'base' }),
    ]);
    expect(events.done[0]).not.toHaveProperty('reasoning');
  });

  describe('a resend whose reply streams in another process', () => {
    const stored = Object.assign(new MessageEntity(), {
      id: 'r-9',
      conversationId: CONVERSATION,
      content: 'Hi from there',
      status: 'complete',
    });
    beforeEach(() => {
      repository.inputs.mockResolvedValueOnce(null).mockResolvedValueOnce(inputs('m-1', false));
      relay.join.mockResolvedValue({ userMessageId: 'm-1', replyId: 'r-9' });
    });

    it('attaches a socket to that reply: no second reply', async () => {
      const { sink } = collectingSink();
      const ack = await send({ ...sink, key: 'socket-1' });
      expect(ack).toEqual({ userMessageId: 'm-1', replyId: 'r-9' });
      expect(relay.join).toHaveBeenCalledWith(USER, 'm-1', 'socket-1');
      expect(streamer.stream).not.toHaveBeenCalled();
    });

    it('answers a client without a socket (SSE) with that reply once it is stored', async () => {
      repository.latestReply.mockResolvedValueOnce(null).mockResolvedValue(stored);
      const { sink, events, settled } = collectingSink();
      const ack = await send(sink);
      await settled;
      expect(ack).toEqual({ userMessageId: 'm-1', replyId: 'r-9' });
      expect(events.done).toEqual([expect.objectContaining({ replyId: 'r-9', content: 'Hi from there' })]);
      expect(streamer.stream).not.toHaveBeenCalled();
    });
  });

  it('answers a resend with the reply already given: no second turn, and the message is not counted twice', async () => {
    repository.inputs.mockResolvedValueOnce(null).mockResolvedValueOnce(inputs('m-1', false));
    repository.latestReply.mockResolvedValue(
      Object.assign(new MessageEntity(), {
        id: 'r-1',
        conversationId: CONVERSATION,
        content: 'Hi',
        status: 'complete',
      }),
    );
    const { sink, events, settled } = collectingSink();
    const ack = await send(sink);
    await settled;
    expect(ack).toEqual({ userMessageId: 'm-1', replyId: 'r-1' });
    expect(slots.giveBack).toHaveBeenCalledWith(USER, expect.objectContaining({ token: true }));
    expect(streamer.stream).not.toHaveBeenCalled();
    expect(events.done).toEqual([expect.objectContaining({ replyId: 'r-1', content: 'Hi' })]);
  });

  it('says 404 for a conversation that is not the user’s, and gives the admitted message back', async () => {
    repository.inputs.mockResolvedValue(null);
    await expect(send(collectingSink().sink)).rejects.toBeInstanceOf(NotFoundException);
    expect(slots.giveBack).toHaveBeenCalledWith(USER, expect.objectContaining({ token: true }));
    expect(streamer.stream).not.toHaveBeenCalled();
  });

  it('tells the client a model failure with retryable set, and records nothing', async () => {
    repository.inputs.mockResolvedValueOnce(inputs());
    streamer.stream.mockRejectedValue(new ModelError('model_unavailable', 'overloaded', true));
    const { sink, events, settled } = collectingSink();
    await send(sink);
    await settled;
    expect(events.errors).toEqual([
      expect.objectContaining({ code: 'model_unavailable', retryable: true, conversationId: CONVERSATION }),
    ]);
    expect(recorder.reply).not.toHaveBeenCalled();
  });

  it('joins a duplicate send to the reply streaming for it instead of starting another', async () => {
    repository.inputs.mockResolvedValueOnce(inputs());
    let finish: () => void = () => undefined;
    streamer.stream.mockImplementation(
      ({ replyId }: StreamRequest) =>
        new Promise((resolve) => {
          finish = () =>
            resolve({
              conversationId: CONVERSATION,
              replyId,
              content: 'x',
              reasoning: null,
              finishReason: 'stop',
              usage: { promptTokens: 0, completionTokens: 0 },
              latencyMs: { ttft: 0, total: 0 },
            });
        }),
    );
    const first = collectingSink();
    const second = collectingSink();
    const [a, b] = await Promise.all([send(first.sink), send(second.sink)]);
    expect(b).toEqual(a);
    finish();
    await Promise.all([first.settled, second.settled]);
    expect(streamer.stream).toHaveBeenCalledTimes(1);
    expect(repository.inputs).toHaveBeenCalledTimes(1);
  });

  it('refuses to regenerate a greeting (422) or someone else’s reply (404)', async () => {
    repository.inputs.mockResolvedValue(null);
    repository.ownedReply.mockResolvedValueOnce(new MessageEntity()).mockResolvedValueOnce(null);
    await expect(turns.regenerate(USER, 'greeting', collectingSink().sink)).rejects.toBeInstanceOf(
      UnprocessableEntityException,
    );
    await expect(turns.regenerate(USER, 'theirs', collectingSink().sink)).rejects.toBeInstanceOf(
      NotFoundException,
    );
    // What the statement took (slot, token, quota turn) goes back each time.
    expect(slots.giveBack).toHaveBeenCalledTimes(2);
    expect(slots.giveBack).toHaveBeenCalledWith(USER, expect.objectContaining({ token: true }));
  });

  describe('after a first turn, the next starts the model request before the database answers', () => {
    const second = (sink: TurnSink) =>
      turns.send(USER, { conversationId: CONVERSATION, content: 'again', clientMessageId: 'k2' }, sink);

    beforeEach(async () => {
      repository.inputs.mockResolvedValueOnce(inputs());
      streamer.stream.mockImplementationOnce(async ({ replyId }: StreamRequest) => reply(replyId));
      const first = collectingSink();
      await send(first.sink);
      await first.settled;
      streamer.stream.mockReset();
      repository.inputs.mockReset();
    });

    it('holds the deltas until the message is stored, then streams them', async () => {
      promptFor = (built) => [built.userMessage.id];
      const write = deferred<TurnInputs>();
      const statement = deferred<TurnTarget & { messageId: string }>();
      repository.inputs.mockImplementationOnce(
        (_user: string, target: TurnTarget & { messageId: string }) => {
          statement.resolve(target);
          return write.promise;
        },
      );
      const delivered: string[] = [];
      streamer.stream.mockImplementation(async ({ replyId, sink }: StreamRequest) => {
        sink.delta({ conversationId: CONVERSATION, replyId, index: 0, delta: 'early ' });
        return reply(replyId, 'early reply');
      });
      const { sink, events, settled } = collectingSink();
      sink.delta = (event) => delivered.push(event.delta);
      const acked = second(sink);
      await new Promise((resolve) => setImmediate(resolve));
      expect(streamer.stream).toHaveBeenCalledTimes(1);
      expect(delivered).toEqual([]);
      // The statement stores the message with the id the guess was given.
      const target = await statement.promise;
      const guessed = (streamer.stream.mock.calls[0] as [StreamRequest])[0];
      expect(guessed.context.prompt).toEqual([target.messageId]);
      write.resolve(inputs(target.messageId));
      const ack = await acked;
      await settled;
      expect(ack.userMessageId).toBe(target.messageId);
      expect(delivered).toEqual(['early ']);
      expect(events.done).toEqual([expect.objectContaining({ replyId: ack.replyId })]);
    });

    it('starts the model request first, and sends the statement once the current messages are handled', async () => {
      const order: string[] = [];
      repository.inputs.mockImplementationOnce(async () => {
        order.push('statement');
        return inputs('m-2');
      });
      streamer.stream.mockImplementation(async ({ replyId }: StreamRequest) => {
        order.push('model');
        return reply(replyId);
      });
      const { sink, settled } = collectingSink();
      await second(sink);
      await settled;
      expect(order).toEqual(['model', 'statement']);
    });

    it('answers from the stored inputs when the guessed prompt cannot be prepared', async () => {
      router.route.mockRejectedValueOnce(new Error('experiments unavailable'));
      repository.inputs.mockResolvedValueOnce(inputs('m-2'));
      streamer.stream.mockImplementation(async ({ replyId }: StreamRequest) => reply(replyId, 'late reply'));
      const { sink, events, settled } = collectingSink();
      const ack = await second(sink);
      await settled;
      expect(ack.userMessageId).toBe('m-2');
      expect(streamer.stream).toHaveBeenCalledTimes(1);
      expect(events.done).toEqual([expect.objectContaining({ replyId: ack.replyId, content: 'late reply' })]);
    });

    it('cancels the model request when the write fails: the client gets the error, nothing is recorded', async () => {
      repository.inputs.mockRejectedValueOnce(new Error('database is down'));
      let signal: AbortSignal | undefined;
      streamer.stream.mockImplementation(({ signal: given }: StreamRequest) => {
        signal = given;
        return new Promise(() => undefined);
      });
      const { sink } = collectingSink();
      await expect(second(sink)).rejects.toMatchObject({ code: 'message_not_stored', status: 503 });
      expect(signal?.aborted).toBe(true);
      expect(recorder.reply).toHaveBeenCalledTimes(1);
    });

    it('keeps the early start when the stored inputs differ in what the prompt does not show', async () => {
      // Say the profile moved in another conversation, without changing the guidance.
      sameInputs = () => false;
      repository.inputs.mockResolvedValueOnce(inputs('m-2'));
      const signals: AbortSignal[] = [];
      streamer.stream.mockImplementation(async ({ replyId, signal }: StreamRequest) => {
        signals.push(signal);
        return reply(replyId);
      });
      const { sink, events, settled } = collectingSink();
      await second(sink);
      await settled;
      expect(signals.map((s) => s.aborted)).toEqual([false]);
      expect(events.done).toHaveLength(1);
    });

    it('starts again from the stored inputs when the guess was stale (the prompt differs)', async () => {
      // Another process's turn came in between.
      const elsewhere = 'from another tab';
      promptFor = (built) => [built.history.some((m) => m.content === elsewhere) ? 'fresh' : 'guessed'];
      const history = [{ role: 'user' as const, content: elsewhere, createdAt: new Date() }];
      repository.inputs.mockResolvedValueOnce({ ...inputs('m-2'), history });
      const signals: AbortSignal[] = [];
      streamer.stream.mockImplementation(async ({ replyId, signal, context }: StreamRequest) => {
        signals.push(signal);
        return reply(replyId, String(context.prompt[0]));
      });
      const { sink, events, settled } = collectingSink();
      await second(sink);
      await settled;
      expect(signals.map((s) => s.aborted)).toEqual([true, false]);
      expect(events.done).toEqual([expect.objectContaining({ content: 'fresh' })]);
    });
  });
});
