import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { askServer, type ContractAnswer, differences } from './contract/answers';
import type { ContractExchange, Placeholders } from './contract/exchanges';
import { CONTRACT_EXCHANGES } from './contract/exchanges';
import { startFakeVllm } from './start-fake-vllm';

interface Fixture {
  engine: { name: string; version: string };
  exchanges: (ContractExchange & { answer: ContractAnswer })[];
}

const FIXTURE = path.join(__dirname, 'fixtures', 'vllm.json');

/** The test server's answers to the contract exchanges, in order, on a fresh server. */
async function testServerAnswers(maxModelLen: number): Promise<ContractAnswer[]> {
  const adapterPath = await mkdtemp(path.join(tmpdir(), 'contract-adapter-'));
  const server = await startFakeVllm({ model: 'contract-model', checkAdapterPaths: true, maxModelLen });
  try {
    const placeholders: Placeholders = {
      model: server.model,
      adapter: 'contract-adapter',
      adapterPath,
      missingPath: '/nonexistent/echoloop-contract-adapter',
    };
    const origin = server.url.replace(/\/v1$/, '');
    const answers: ContractAnswer[] = [];
    for (const exchange of CONTRACT_EXCHANGES) answers.push(await askServer(origin, exchange, placeholders));
    return answers;
  } finally {
    await server.close();
    await rm(adapterPath, { recursive: true, force: true });
  }
}

/**
 * The deterministic test server stands in for vLLM in tests that assert exact model output; it is held to the
 * answers recorded from the real engine (tools/vllm-fixtures), so it cannot drift from what it stands in for.
 */
describe('the test server answers as the recorded vLLM engine does', () => {
  let fixture: Fixture;
  let answers: ContractAnswer[];

  beforeAll(async () => {
    fixture = JSON.parse(await readFile(FIXTURE, 'utf8')) as Fixture;
    answers = await testServerAnswers(2_048);
  });

  it('the fixture holds every contract exchange, recorded from vLLM', () => {
    expect(fixture.engine.name).toBe('vllm');
    expect(fixture.exchanges.map((e) => e.name)).toEqual(CONTRACT_EXCHANGES.map((e) => e.name));
  });

  it('gives the same statuses, media types, body and stream shapes, error types and messages', () => {
    const problems = fixture.exchanges.flatMap((recorded, i) =>
      differences(recorded, recorded.answer, answers[i]!),
    );
    expect(problems).toEqual([]);
  });

  it('notices a fixture changed by hand: a renamed key, another status, another message', () => {
    const edited = (i: number, change: (answer: ContractAnswer) => ContractAnswer) =>
      differences(fixture.exchanges[i]!, change(structuredClone(fixture.exchanges[i]!.answer)), answers[i]!);
    const streamed = fixture.exchanges.findIndex((e) => e.answer.events);
    const again = fixture.exchanges.findIndex((e) => e.name === 'load the same adapter again');
    expect(
      edited(streamed, (answer) => {
        const first = answer.events![0] as Record<string, unknown>;
        first['identifier'] = first['id'];
        delete first['id'];
        return answer;
      }),
    ).not.toEqual([]);
    expect(edited(again, (answer) => ({ ...answer, status: 409 }))).not.toEqual([]);
    expect(
      edited(again, (answer) => {
        (answer.json as { error: { message: string } }).error.message = 'already there';
        return answer;
      }),
    ).not.toEqual([]);
  });
});
