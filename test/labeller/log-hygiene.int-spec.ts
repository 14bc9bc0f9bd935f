import { replyByRules, waitFor } from '@echoloop/testing';
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_JUDGE_RULES,
  JUDGE_SYSTEM,
  startLabellerFixture,
  waitFinished,
  type LabellerFixture,
} from './labeller-fixture';

// Unique per run, and in a form no id or route word could take.
const MARKER = `Mk${randomUUID().slice(0, 8)}Zq`;

describe('labeller logs carry ids and codes, never the turn text', () => {
  let f: LabellerFixture;

  beforeAll(async () => {
    f = await startLabellerFixture();
  });

  afterAll(async () => {
    await f?.close();
  });

  it('judges failing on a marked turn leave the marker out of the logs', async () => {
    // One judge echoes the turn in an answer it cannot parse; the other refuses the request quoting it.
    f.judge.setReply(
      replyByRules([
        {
          when: { systemIncludes: JUDGE_SYSTEM.empathy, anyMessageIncludes: MARKER },
          reply: `The user said ${MARKER}.`,
        },
        ...DEFAULT_JUDGE_RULES,
      ]),
    );
    f.judge.setFaults((request) =>
      JSON.stringify(request.messages).includes(MARKER) &&
      request.messages[0]?.content.includes(JUDGE_SYSTEM.humanlike)
        ? { failWith: { status: 400, message: `cannot judge "${MARKER}"` } }
        : undefined,
    );
    const c = await f.conversation();
    const turn = await c.turn(`My secret is ${MARKER}`, `I will keep ${MARKER} safe.`);
    await c.publish(turn);
    await waitFinished(f, turn.turnId);
    const failed = (await f.labels(turn.turnId)).filter((label) => label.status === 'failed');
    expect(failed.map((label) => label.component).sort()).toEqual(['empathy', 'humanlike']);

    await fetch(`${f.labeller.url}/v1/rewards/score?note=${MARKER}`, { method: 'POST' });
    // The request line is written once the response is: wait for it, then read everything.
    const logs = await waitFor(() => {
      const text = f.labeller.logs();
      return text.includes('"path":"/v1/rewards/score"') && text;
    });
    expect(logs).not.toContain(MARKER);
  });
});
