import type { LabelledTurn } from './labelled-turns';
import { labelStateOf } from './records';

const label = (component: string, status: string, error: string | null = null) => ({
  component,
  status,
  value: status === 'labelled' ? 0.5 : null,
  label: null,
  delta: null,
  error,
});
const turnWith = (labels: LabelledTurn['labels'], finished = true) => ({ labels, finished }) as LabelledTurn;

describe('labelStateOf', () => {
  it('is labelled when nothing failed, skipped components included', () => {
    expect(labelStateOf(turnWith([label('empathy', 'labelled'), label('live_emotion', 'skipped')]))).toEqual({
      status: 'labelled',
      failures: [],
    });
  });

  it('is partly failed when some components were labelled, failed when none was, with each reason', () => {
    const failure = label('empathy', 'failed', 'unreadable: no verdict line');
    expect(labelStateOf(turnWith([failure, label('implicit', 'labelled')]))).toEqual({
      status: 'partially_failed',
      failures: [{ component: 'empathy', reason: 'unreadable: no verdict line' }],
    });
    expect(labelStateOf(turnWith([failure, label('humanlike', 'failed'), label('x', 'skipped')]))).toEqual({
      status: 'failed',
      failures: [
        { component: 'empathy', reason: 'unreadable: no verdict line' },
        { component: 'humanlike', reason: 'failed' },
      ],
    });
  });

  it('is pending until the labels are all in, with the failures so far', () => {
    expect(labelStateOf(turnWith([label('empathy', 'labelled')], false))).toEqual({
      status: 'pending',
      failures: [],
    });
    expect(labelStateOf(turnWith([label('empathy', 'failed', 'judge away')], false))).toEqual({
      status: 'pending',
      failures: [{ component: 'empathy', reason: 'judge away' }],
    });
  });

  it('redacts and shortens a reason that quotes what the judge read', () => {
    const [failure] = labelStateOf(
      turnWith([label('empathy', 'failed', `unreadable: mail me at sam@example.com ${'x'.repeat(400)}`)]),
    ).failures;
    expect(failure!.reason).not.toContain('sam@example.com');
    expect(failure!.reason.length).toBeLessThanOrEqual(320);
  });
});
