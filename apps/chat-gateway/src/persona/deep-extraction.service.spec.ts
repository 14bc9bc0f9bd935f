import type { MessageEntity } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { waitFor } from '@echoloop/testing';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { GATEWAY_ENV, gatewayEnv } from '../env';
import { DeepExtractionService } from './deep-extraction.service';
import { PersonaService } from './persona.service';

const settle = () => new Promise((resolve) => setImmediate(resolve));

async function setUp(concurrency: number, queueSize: number) {
  /** Extractions in flight: each waits on its read of the conversation, finished when released. */
  const reads: (() => void)[] = [];
  // No user message in the window: the extraction ends there without a model call.
  const recentCompleteMessages = jest.fn(() => new Promise((resolve) => reads.push(() => resolve([]))));
  const metrics = new MetricsService('test');
  const module = await Test.createTestingModule({
    providers: [
      DeepExtractionService,
      {
        provide: GATEWAY_ENV,
        useValue: gatewayEnv.parse({
          DEEP_EXTRACTION_CONCURRENCY: String(concurrency),
          DEEP_EXTRACTION_QUEUE_SIZE: String(queueSize),
        }),
      },
      { provide: ConversationsRepository, useValue: { recentCompleteMessages } },
      { provide: CheckpointsService, useValue: {} },
      { provide: PersonaService, useValue: {} },
      { provide: PinoLogger, useValue: { warn: jest.fn(), debug: jest.fn() } },
      { provide: MetricsService, useValue: metrics },
    ],
  }).compile();
  return {
    module,
    deep: module.get(DeepExtractionService),
    reads,
    getMany: recentCompleteMessages,
    counter: counterOf(metrics),
  };
}

function counterOf(metrics: MetricsService) {
  return async (name: string, labels: Record<string, string>) =>
    (await metrics.registry.getSingleMetric(name)?.get())?.values.find((v) =>
      Object.entries(labels).every(([k, l]) => v.labels[k] === l),
    )?.value ?? 0;
}

const T0 = Date.parse('2026-11-01T10:00:00Z');
const message = (id: string, role: 'user' | 'assistant', content: string, minute: number) =>
  ({ id, role, content, createdAt: new Date(T0 + minute * 60_000) }) as MessageEntity;

/** One extraction that reaches the model: the repository's rows (newest first) and the model's replies given. */
async function extractionWith(replies: string[], mergeResult: number | null = 0) {
  const rows = [
    message('u2', 'user', 'second thing i say', 3),
    message('a1', 'assistant', 'a reply', 2),
    message('u1', 'user', 'first thing i say', 1),
  ];
  const recentCompleteMessages = jest.fn(async () => rows);
  const client = {
    complete: jest.fn(async () => ({ text: replies.shift() ?? '', finishReason: 'stop' })),
  };
  const mergeNow = jest.fn(async () => mergeResult);
  const metrics = new MetricsService('test');
  const module = await Test.createTestingModule({
    providers: [
      DeepExtractionService,
      { provide: GATEWAY_ENV, useValue: gatewayEnv.parse({}) },
      { provide: ConversationsRepository, useValue: { recentCompleteMessages } },
      {
        provide: CheckpointsService,
        useValue: {
          defaultCheckpoint: async () => ({ id: 'base', modelName: 'fake', contextTokens: 8192 }),
          clientFor: () => client,
        },
      },
      { provide: PersonaService, useValue: { mergeNow } },
      { provide: PinoLogger, useValue: { warn: jest.fn(), debug: jest.fn() } },
      { provide: MetricsService, useValue: metrics },
    ],
  }).compile();
  const through = new Date(T0 + 5 * 60_000);
  module.get(DeepExtractionService).schedule('u', 'c1', through);
  const counter = counterOf(metrics);
  const counted = async () => {
    const outcomes: Record<string, number> = {};
    for (const outcome of ['merged', 'invalid_output', 'model_error', 'inference_off', 'context_too_small']) {
      const count = await counter('persona_deep_extractions_total', { outcome });
      if (count) outcomes[outcome] = count;
    }
    return Object.keys(outcomes).length > 0 && outcomes;
  };
  // The extraction has ended once its outcome is counted.
  const outcomes = await waitFor(counted, { timeoutMs: 2_000, intervalMs: 1, what: 'an extraction outcome' });
  await module.close();
  return { recentCompleteMessages, client, mergeNow, through, outcomes };
}

describe('DeepExtractionService extraction', () => {
  it("reads the conversation's recent messages up to the turn and asks about them oldest first", async () => {
    const { recentCompleteMessages, client, through, outcomes } = await extractionWith(['{}']);

    expect(recentCompleteMessages).toHaveBeenCalledWith('c1', through, 40);
    const [request] = client.complete.mock.calls[0] as unknown as [{ messages: { content: string }[] }];
    const transcript = request.messages.at(-1)!.content;
    expect(transcript.indexOf('first thing i say')).toBeGreaterThan(-1);
    expect(transcript.indexOf('first thing i say')).toBeLessThan(transcript.indexOf('second thing i say'));
    expect(outcomes).toEqual({ merged: 1 });
  });

  it("merges what the model judged as a deep extraction in the persona's own transaction", async () => {
    const { mergeNow, outcomes } = await extractionWith([
      JSON.stringify({ initiative: { value: 'passive', confidence: 0.5, evidence: [2] } }),
    ]);

    expect(mergeNow).toHaveBeenCalledTimes(1);
    expect(mergeNow).toHaveBeenCalledWith(
      'u',
      [expect.objectContaining({ field: 'initiative', value: 'passive', messageId: 'u2', source: 'deep' })],
      'deep-extraction',
    );
    expect(outcomes).toEqual({ merged: 1 });
  });

  it('counts invalid output twice as an attempt: merges nothing, but as a deep extraction', async () => {
    const { client, mergeNow, outcomes } = await extractionWith(['The user seems casual.', 'still prose']);

    expect(client.complete).toHaveBeenCalledTimes(2);
    expect(mergeNow).toHaveBeenCalledWith('u', [], 'deep-extraction');
    expect(outcomes).toEqual({ invalid_output: 1 });
  });

  it('is inference_off when the merge finds inference turned off', async () => {
    const { mergeNow, outcomes } = await extractionWith(['{}'], null);

    expect(mergeNow).toHaveBeenCalledWith('u', [], 'deep-extraction');
    expect(outcomes).toEqual({ inference_off: 1 });
  });
});

describe('DeepExtractionService side-work limits', () => {
  it('runs at most DEEP_EXTRACTION_CONCURRENCY at once, queues DEEP_EXTRACTION_QUEUE_SIZE, drops and counts the rest', async () => {
    const { module, deep, reads, getMany, counter } = await setUp(1, 2);
    for (const user of ['u1', 'u2', 'u3', 'u4', 'u5']) deep.schedule(user, `conv-${user}`, new Date());
    await settle();

    expect(getMany).toHaveBeenCalledTimes(1);
    expect(await counter('side_work_dropped_total', { work: 'deep_extraction' })).toBe(2);

    for (let finished = 1; finished <= 3; finished++) {
      reads.shift()!();
      await settle();
    }
    expect(getMany).toHaveBeenCalledTimes(3); // the two queued ones, one after the other; the dropped never
    expect(await counter('persona_deep_extractions_total', { outcome: 'merged' })).toBe(3);
    await module.close();
  });

  it('one extraction per user at a time: another request for them while one waits is ignored, not dropped', async () => {
    const { module, deep, getMany, counter } = await setUp(1, 1);
    deep.schedule('u1', 'c1', new Date());
    deep.schedule('u1', 'c1', new Date());
    deep.schedule('u2', 'c2', new Date()); // queued
    deep.schedule('u2', 'c2', new Date()); // already queued for u2
    await settle();
    expect(getMany).toHaveBeenCalledTimes(1);
    expect(await counter('side_work_dropped_total', { work: 'deep_extraction' })).toBe(0);
    await module.close();
  });

  it('drops what still waits when the app shuts down', async () => {
    const { module, deep, reads, getMany, counter } = await setUp(1, 3);
    for (const user of ['u1', 'u2', 'u3']) deep.schedule(user, `conv-${user}`, new Date());
    await settle();
    deep.onApplicationShutdown();
    reads.shift()!();
    await settle();
    expect(getMany).toHaveBeenCalledTimes(1);
    expect(await counter('side_work_dropped_total', { work: 'deep_extraction' })).toBe(2);
    await module.close();
  });
});
