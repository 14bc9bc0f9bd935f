import { characterCardSchema } from '@echoloop/character-cards';
import { parseProfilesJsonl } from '@echoloop/sentient';
import { type FakeVllm, startFakeVllm } from '@echoloop/testing';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runEvaluation } from './evaluation';
import { episodeDeps } from './model-calls';

const ROOT = path.resolve(__dirname, '../../../..');
const { profiles } = parseProfilesJsonl(
  readFileSync(path.join(ROOT, 'data/sentient/profiles.jsonl'), 'utf8'),
);
const chosen = profiles.filter((p) => p.pool === 'benchmark').slice(0, 3);
const card = characterCardSchema.parse(
  JSON.parse(readFileSync(path.join(ROOT, 'data/characters/echo.card.json'), 'utf8')),
);
// Scripted analysers: the first user warms up by 10 a turn, the second cools by 10, the third never moves.
const CHANGE = [10, -10, 0];

describe('sentient benchmark on the vLLM-compatible test server', () => {
  let server: FakeVllm;
  let out: string;

  beforeAll(async () => {
    server = await startFakeVllm({
      model: 'policy',
      reply: (request) => {
        const schema = (request.response_format as { json_schema?: { name: string } } | undefined)
          ?.json_schema?.name;
        const text = request.messages.map((m) => m.content).join('\n');
        const who = chosen.findIndex((p) => text.includes(`Name: ${p.persona.name}`));
        if (schema === 'sentient_analysis') {
          return JSON.stringify({
            content: 'c',
            goalFit: 'g',
            innerActivity: 'i',
            feeling: 'f',
            change: CHANGE[who],
          });
        }
        if (schema === 'sentient_user_turn') {
          return JSON.stringify({
            thinking: 't',
            draft: 'd',
            response: `user ${who} speaks`,
            goodbye: false,
          });
        }
        return '<think>plan</think>I hear you. Tell me more.';
      },
    });
    out = mkdtempSync(path.join(tmpdir(), 'sentient-'));
  });

  afterAll(async () => {
    await server.close();
    rmSync(out, { recursive: true, force: true });
  });

  const target = () => ({
    baseUrl: server.url,
    apiKey: 'k',
    model: 'policy',
    contextTokens: 4096,
    maxTokens: 128,
  });
  const run = (progress: { resumed: number }[] = []) =>
    runEvaluation({
      profiles: chosen,
      deps: episodeDeps(target(), target(), card),
      outDir: out,
      concurrency: 2,
      title: 'test run',
      pinned: { policy: 'policy', simulator: 'policy' },
      onProgress: (p) => progress.push(p),
    });

  it('gives exactly the metrics the scripted analyser implies, and writes the JSON and HTML reports', async () => {
    const report = await run();
    const byId = Object.fromEntries(report.episodes.map((e) => [e.profileId, e]));
    expect(byId[chosen[0]!.id]).toMatchObject({
      finalScore: 100,
      endReason: 'score_max',
      turns: 6,
      reward: 1,
    });
    expect(byId[chosen[1]!.id]).toMatchObject({ finalScore: 0, endReason: 'score_min', turns: 4, reward: 0 });
    expect(byId[chosen[2]!.id]).toMatchObject({ finalScore: 40, endReason: 'max_turns', turns: 10 });
    expect(report.metrics).toMatchObject({ count: 3, successes: 1, failures: 1, errors: 0 });
    expect(report.metrics.meanFinalScore).toBeCloseTo(140 / 3, 10);
    const html = readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html.match(/<svg /g)).toHaveLength(3);
    expect(html).toContain('mean final emotion');
    expect(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')).metrics.count).toBe(3);
  });

  it('never shows the policy the profile, and calls it through the gateway prompt (character first)', () => {
    const policyCalls = server.requests
      .map((r) => r.body as { response_format?: unknown; messages: { content: string }[] })
      .filter((b) => b.response_format === undefined);
    expect(policyCalls.length).toBeGreaterThan(0);
    for (const call of policyCalls) {
      const text = JSON.stringify(call.messages);
      for (const profile of chosen) {
        expect(text).not.toContain(profile.scene.background.slice(0, 40));
        expect(text).not.toContain(profile.persona.name);
      }
      expect(call.messages[0]?.content).toContain(card.data.name);
      expect((call as { stop?: string[] }).stop).toEqual(expect.arrayContaining(['\nUser:']));
    }
    // Think text is stripped before the simulator sees the reply.
    const simulatorCalls = server.requests.filter(
      (r) => (r.body as { response_format?: unknown }).response_format,
    );
    expect(simulatorCalls.every((r) => !JSON.stringify(r.body).includes('<think>'))).toBe(true);
  });

  it('resumes: a second run with the same output folder runs nothing again', async () => {
    const before = server.requests.length;
    const progress: { resumed: number }[] = [];
    const report = await run(progress);
    expect(server.requests.length).toBe(before);
    expect(report.metrics.count).toBe(3);
    expect(existsSync(path.join(out, 'episodes.jsonl'))).toBe(true);
  });
});
