import { ChatModelClient } from '@echoloop/llm';
import { HIDDEN_NEEDS } from '@echoloop/persona';
import { type FakeVllm, startFakeVllm } from '@echoloop/testing';
import { loadDataset } from './dataset';
import { evaluate } from './evaluate';
import { fastInferrer, llmInferrer, wrongInferrer } from './inferrers';
import { scriptedExtractionReply } from './scripted-extractor';

const dataset = loadDataset();

describe('persona inference evaluation', () => {
  it('ships a balanced set: every hidden need twice, both sides of each style trait, three languages besides English', () => {
    expect(dataset).toHaveLength(16);
    for (const need of HIDDEN_NEEDS)
      expect(dataset.filter((c) => c.truth.hiddenNeed === need)).toHaveLength(2);
    for (const field of ['formality', 'verbosity', 'initiative'] as const) {
      expect(new Set(dataset.map((c) => c.truth[field])).size).toBe(2);
    }
    expect(new Set(dataset.map((c) => c.truth.language))).toEqual(new Set(['en', 'es', 'fr', 'de']));
  });

  it('gives each field a 95% interval around its accuracy, and the majority baseline to beat', async () => {
    const result = await evaluate(dataset, fastInferrer());
    for (const field of result.fields) {
      expect(field.accuracyInterval[0]).toBeLessThanOrEqual(field.accuracy);
      expect(field.accuracyInterval[1]).toBeGreaterThanOrEqual(field.accuracy);
      expect(field.accuracyInterval[1] - field.accuracyInterval[0]).toBeGreaterThan(0.1);
    }
    expect(result.fields.find((f) => f.field === 'hiddenNeed')?.majorityBaseline).toBe(2 / 16);
  });

  it('refuses the scripted mode on a set without hand-written extractions: it only tests the pipeline', () => {
    const unscripted = dataset.map(({ scriptedExtraction: _s, ...rest }) => rest);
    expect(() => scriptedExtractionReply(unscripted)).toThrow(/test of the pipeline/);
  });

  it('scores a deliberately wrong inferrer at zero on every field', async () => {
    const result = await evaluate(dataset, wrongInferrer());
    expect(result.fields.map((f) => f.accuracy)).toEqual(result.fields.map(() => 0));
    expect(result.overall.accuracy).toBe(0);
    expect(result.details.every((d) => d.misses.length === 7)).toBe(true);
  });

  it('scores the fast features well on what they measure (style, emoji, language) and reports progress', async () => {
    const progress: number[] = [];
    const result = await evaluate(dataset, fastInferrer(), (done) => progress.push(done));
    expect(progress).toEqual(dataset.map((_, i) => i + 1));
    const accuracy = Object.fromEntries(result.fields.map((f) => [f.field, f.accuracy]));
    for (const field of ['formality', 'verbosity', 'emoji', 'language']) {
      expect(accuracy[field]).toBeGreaterThanOrEqual(0.8);
    }
    expect(result.deepRuns).toBe(0);
  });

  describe('with the deep extraction from the vLLM-compatible test server', () => {
    let server: FakeVllm;
    beforeAll(async () => {
      server = await startFakeVllm({ model: 'scripted', reply: scriptedExtractionReply(dataset) });
    });
    afterAll(() => server.close());

    it('runs the extraction on the gateway schedule with the JSON schema, and lifts the need and initiative', async () => {
      const client = new ChatModelClient([{ baseUrl: server.url, apiKey: 'k' }]);
      const deep = await evaluate(dataset, llmInferrer('scripted', client, 'scripted', 4_096));
      const fast = await evaluate(dataset, fastInferrer());
      expect(deep.deepRuns).toBeGreaterThanOrEqual(dataset.length);
      expect(deep.deepDropped).toBe(0);
      expect(server.requests.at(-1)?.body).toMatchObject({
        response_format: { type: 'json_schema', json_schema: { name: 'user_profile' } },
      });
      const accuracy = (r: typeof deep, field: string) =>
        r.fields.find((f) => f.field === field)?.accuracy ?? 0;
      expect(accuracy(deep, 'hiddenNeed')).toBeGreaterThan(accuracy(fast, 'hiddenNeed'));
      expect(accuracy(deep, 'initiative')).toBeGreaterThan(accuracy(fast, 'initiative'));
      expect(deep.overall.accuracy).toBeGreaterThan(fast.overall.accuracy);
    });

    it('counts an extractor that never returns valid output as dropped runs, leaving the fast profile', async () => {
      const broken = await startFakeVllm({ model: 'broken', reply: 'I think the user is nice.' });
      try {
        const client = new ChatModelClient([{ baseUrl: broken.url, apiKey: 'k' }]);
        const result = await evaluate(dataset, llmInferrer('broken', client, 'broken', 4_096));
        expect(result.deepDropped).toBe(result.deepRuns);
        expect(result.overall.accuracy).toBeCloseTo(
          (await evaluate(dataset, fastInferrer())).overall.accuracy,
          5,
        );
      } finally {
        await broken.close();
      }
    });
  });
});
