import { type GateReport, gateReport, gateReportOf } from './gate-report';

const current: GateReport = {
  passed: false,
  better: false,
  level: 0.9,
  reasons: ['repeated_sentences significantly worse: candidate 0.4 vs default 0'],
  notes: [],
  checks: [
    {
      name: 'repeated_sentences',
      role: 'guard',
      status: 'failed',
      items: 16,
      candidate: 0.4,
      default: 0,
      delta: 0.4,
      interval: [0.2, 0.6],
      significance: 'higher',
      detail: null,
    },
  ],
  evaluations: { candidate: 'eval-a', default: 'eval-b' },
};

describe('gateReportOf', () => {
  it('a report in the current shape is read as it is', () => {
    expect(gateReportOf(current)).toEqual(current);
  });

  it('a report from before intervals reads as its two comparisons, with no interval, in the documented shape', () => {
    const legacy = {
      passed: true,
      reasons: [],
      sentient: {
        candidate: 61,
        default: 55,
        delta: 6,
        profiles: 16,
        candidateEvaluationId: 'eval-a',
        defaultEvaluationId: 'eval-b',
      },
      heldout: { candidate: 0.6, default: 0.5, delta: 0.1, items: 12 },
    };
    const report = gateReportOf(legacy);
    expect(gateReport.parse(report)).toEqual(report);
    expect(report).toMatchObject({
      passed: true,
      better: false,
      level: 0.95,
      evaluations: { candidate: 'eval-a', default: 'eval-b' },
    });
    expect(report?.checks.map((c) => [c.name, c.items, c.delta, c.interval])).toEqual([
      ['sentient', 16, 6, null],
      ['heldout_reward', 12, 0.1, null],
    ]);
  });

  it('a job without a verdict has none', () => {
    expect(gateReportOf(null)).toBeNull();
    expect(gateReportOf({ reasons: ['gate could not start'] })).toBeNull();
  });
});
