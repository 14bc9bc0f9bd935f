import { MetricsService } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { PinoLogger } from 'nestjs-pino';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { GATEWAY_ENV, gatewayEnv } from '../env';
import { DeepExtractionService } from './deep-extraction.service';
import { PersonaService } from './persona.service';

const settle = () => new Promise((resolve) => setImmediate(resolve));

async function setUp(concurrency: number, queueSize: number) {
  /** Extractions in flight: each waits on its read of the conversation, finished when released. */
  const reads: (() => void)[] = [];
  const queryBuilder = {
    where: () => queryBuilder,
    andWhere: () => queryBuilder,
    orderBy: () => queryBuilder,
    addOrderBy: () => queryBuilder,
    take: () => queryBuilder,
    // No user message in the window: the extraction ends there without a model call.
    getMany: jest.fn(() => new Promise((resolve) => reads.push(() => resolve([])))),
  };
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
      {
        provide: getDataSourceToken(),
        useValue: { getRepository: () => ({ createQueryBuilder: () => queryBuilder }) },
      },
      { provide: CheckpointsService, useValue: {} },
      { provide: PersonaService, useValue: {} },
      { provide: PinoLogger, useValue: { warn: jest.fn(), debug: jest.fn() } },
      { provide: MetricsService, useValue: metrics },
    ],
  }).compile();
  const counter = async (name: string, labels: Record<string, string>) =>
    (await metrics.registry.getSingleMetric(name)?.get())?.values.find((v) =>
      Object.entries(labels).every(([k, l]) => v.labels[k] === l),
    )?.value ?? 0;
  return { module, deep: module.get(DeepExtractionService), reads, getMany: queryBuilder.getMany, counter };
}

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
