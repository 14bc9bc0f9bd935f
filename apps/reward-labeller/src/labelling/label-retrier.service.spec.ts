import { MetricsService } from '@echoloop/platform';
import { DEFAULT_REWARD_CONFIG } from '@echoloop/rewards';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { LABELLER_ENV } from '../tokens';
import { ComponentJudges } from './component-judges';
import { FeedbackStore } from './feedback-store';
import type { LabelDraft } from './label-draft';
import { LabelRetrier } from './label-retrier.service';
import { type DueRetry, LabelRetriesRepository } from './label-retries.repository';
import { TurnLabeller } from './turn-labeller.service';
import type { TurnPayload } from './turn-payload';

const TURN = '7c1f2a4e-1111-4a4a-9a9a-000000000001';
const payload = {
  history: [],
  userMessage: { content: 'My cat is ill' },
  assistantMessage: { content: 'I am so sorry.', reasoning: null, finishReason: 'stop' },
} as unknown as TurnPayload;
const draft = (status: 'labelled' | 'failed', component: 'empathy' | 'humanlike'): LabelDraft => ({
  component,
  status,
  value: status === 'labelled' ? 0.75 : null,
  label: status === 'labelled' ? '4' : null,
  judgeModel: 'judge',
  promptVersion: 'v',
  rawOutput: null,
  error: status === 'failed' ? 'unreadable: no verdict line' : null,
  details: null,
});

async function retrierWith(due: DueRetry[], judged: LabelDraft, replaced = true) {
  const repository = {
    due: jest.fn().mockResolvedValueOnce(due).mockResolvedValue([]),
    failedAgain: jest.fn(),
    succeeded: jest.fn(),
  };
  const judges = { empathy: jest.fn(async () => judged), humanlike: jest.fn(async () => judged) };
  const feedback = {
    alternativesOf: jest.fn(async () => [{ turnId: TURN, signals: {}, reply: 'I am so sorry.' }]),
    replaceLabel: jest.fn(async () => replaced),
  };
  const moduleRef = await Test.createTestingModule({
    providers: [
      LabelRetrier,
      {
        provide: LABELLER_ENV,
        useValue: { LABEL_RETRY_MAX_ATTEMPTS: 4, LABEL_RETRY_BASE_MS: 1000, LABEL_RETRY_SWEEP_MS: 1000 },
      },
      { provide: LabelRetriesRepository, useValue: repository },
      { provide: ComponentJudges, useValue: judges },
      { provide: FeedbackStore, useValue: feedback },
      { provide: TurnLabeller, useValue: { version: 'labeller-v1', config: DEFAULT_REWARD_CONFIG } },
      { provide: MetricsService, useValue: new MetricsService('test') },
      { provide: PinoLogger, useValue: { warn: jest.fn() } },
    ],
  }).compile();
  return { retrier: moduleRef.get(LabelRetrier), repository, judges, feedback };
}

describe('LabelRetrier', () => {
  it('replaces a failed label through the feedback path once the judge answers, only while it is still failed', async () => {
    const { retrier, repository, judges, feedback } = await retrierWith(
      [{ turnId: TURN, component: 'empathy', attempts: 1, payload }],
      draft('labelled', 'empathy'),
    );
    await retrier.sweep();
    expect(judges.empathy).toHaveBeenCalledWith(
      expect.objectContaining({ reply: 'I am so sorry.' }),
      null,
      DEFAULT_REWARD_CONFIG,
    );
    const [turnId, replacement, version, , stillCurrent] = feedback.replaceLabel.mock.calls[0] as unknown as [
      string,
      LabelDraft,
      string,
      unknown,
      (stored: { status: string } | null) => boolean,
    ];
    expect([turnId, replacement.status, version]).toEqual([TURN, 'labelled', 'labeller-v1']);
    expect(stillCurrent({ status: 'failed' })).toBe(true);
    expect(stillCurrent({ status: 'labelled' })).toBe(false);
    expect(repository.succeeded).toHaveBeenCalledWith(TURN, 'empathy', 'labeller-v1');
    expect(repository.failedAgain).not.toHaveBeenCalled();
  });

  it('counts a retry that failed again, with its error, and replaces nothing', async () => {
    const { retrier, repository, feedback } = await retrierWith(
      [{ turnId: TURN, component: 'humanlike', attempts: 2, payload }],
      draft('failed', 'humanlike'),
    );
    await retrier.sweep();
    expect(repository.failedAgain).toHaveBeenCalledWith(
      TURN,
      'humanlike',
      'labeller-v1',
      2,
      'unreadable: no verdict line',
    );
    expect(feedback.replaceLabel).not.toHaveBeenCalled();
  });

  it('asks for the due retries with the configured bounds', async () => {
    const { retrier, repository } = await retrierWith([], draft('labelled', 'empathy'));
    await retrier.sweep();
    expect(repository.due).toHaveBeenCalledWith('labeller-v1', { maxAttempts: 4, baseMs: 1000 }, 50);
  });
});
