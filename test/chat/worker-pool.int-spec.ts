import { waitFor } from '@echoloop/testing';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

/** The pids of the workers that logged they listen, in order (pino puts the pid on every line). */
const listeningPids = (logs: string): number[] =>
  logs
    .split('\n')
    .filter((line) => line.includes('listening on'))
    .map((line) => (JSON.parse(line) as { pid: number }).pid);

/** The pids of the workers that logged an HTTP request they answered. */
const servingPids = (logs: string): number[] =>
  logs
    .split('\n')
    .filter((line) => line.includes('"req":'))
    .map((line) => (JSON.parse(line) as { pid: number }).pid);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * GATEWAY_WORKERS=2: a cluster primary forks two gateway processes on one port, replaces one that dies, and takes
 * them all down with it. Whatever worker a client lands on, its turns and limits are the same.
 */
describe('a gateway worker pool on one port', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture({ GATEWAY_WORKERS: '2', MAX_CONCURRENT_STREAMS: '1' });
    await waitFor(() => listeningPids(f.gateway.logs()).length >= 2, { timeoutMs: 60_000 });
  }, 120_000);

  afterAll(async () => {
    await f?.close();
  });

  it("serves a user's turns from whichever worker each socket lands on", async () => {
    const [first, second] = listeningPids(f.gateway.logs());
    expect(first).not.toBe(second);
    const { token } = await f.register();
    const conversation = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
    // Connections are dealt to the workers in turn: four sockets land on both.
    const sockets = await Promise.all([1, 2, 3, 4].map(() => f.connect(token)));
    for (const [i, socket] of sockets.entries()) {
      const turn = await sendAndCollect(socket, {
        conversationId: conversation.body.id,
        content: `hello ${i}`,
        clientMessageId: `w${i}`,
      });
      expect(turn.error).toBeUndefined();
      expect(turn.done?.content).toBeTruthy();
    }
    const messages = await f.http(token, 'GET', `/v1/conversations/${conversation.body.id}/messages`);
    expect(messages.body.items.filter((m: { role: string }) => m.role === 'user')).toHaveLength(4);
    expect(new Set(servingPids(f.gateway.logs()))).toEqual(new Set([first, second]));
  });

  it('replaces a worker that dies, and serves meanwhile from the other', async () => {
    const before = listeningPids(f.gateway.logs());
    const victim = before[0]!;
    process.kill(victim, 'SIGKILL');
    await waitFor(() => !alive(victim));
    // A kept-alive connection to the dead worker fails (as it would for any client), at most once: the next one
    // lands on the surviving worker while the replacement starts.
    const { token } = await waitFor(() => f.register().catch(() => undefined), {
      timeoutMs: 10_000,
      what: 'a registration served by the surviving worker',
    });
    expect(token).toBeTruthy();
    await waitFor(() => listeningPids(f.gateway.logs()).length > before.length, { timeoutMs: 60_000 });
    const replacement = listeningPids(f.gateway.logs()).at(-1)!;
    expect(before).not.toContain(replacement);
    expect(f.gateway.logs()).toContain('gateway worker died; starting another');
  });

  it('stops every worker on SIGTERM and exits cleanly', async () => {
    const pids = listeningPids(f.gateway.logs()).filter(alive);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    expect(await f.gateway.stop()).toBe('graceful');
    await waitFor(() => pids.every((pid) => !alive(pid)), { timeoutMs: 15_000 });
  });
});
