import { DEFAULT_CLIENT_OPTIONS } from '@echoloop/llm';
import { replyWith } from '@echoloop/testing';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { sendAndCollect, startChatFixture, type ChatFixture, type TurnEvents } from './chat-fixture';

const STREAMS = 50;
const TIMEOUT_MS = 1_500;
const REPLY = 'I am here with you, take all the time you need tonight.';
/** The gateway's breaker: it lets a trial through this long after it opened. */
const RESET_MS = DEFAULT_CLIENT_OPTIONS.breaker.cooldownMs;
const RESULTS = path.resolve(__dirname, '../../bench/results/model-stall-drill.json');

interface Chatter {
  socket: Socket;
  conversationId: string;
}

describe('drill: the model stalls past its timeouts under load, then recovers', () => {
  let f: ChatFixture;
  const chatters: Chatter[] = [];

  beforeAll(async () => {
    f = await startChatFixture({
      LLM_FIRST_TOKEN_TIMEOUT_MS: String(TIMEOUT_MS),
      LLM_IDLE_TIMEOUT_MS: String(TIMEOUT_MS),
      RATE_LIMIT_PER_MINUTE: '1000',
      MAX_CONCURRENT_STREAMS: '4',
    });
    f.vllm.setReply(replyWith(REPLY));
    for (let i = 0; i < STREAMS; i++) {
      const { token } = await f.register(`Drill${i}`);
      const conversation = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
      chatters.push({ socket: await f.connect(token), conversationId: conversation.body.id });
    }
  }, 120_000);

  afterAll(async () => {
    await f?.close();
  });

  const turn = ({ socket, conversationId }: Chatter, content: string): Promise<TurnEvents> =>
    sendAndCollect(socket, { conversationId, content, clientMessageId: randomUUID() }, 30_000);

  it('every stalled turn ends with a retryable error, and the chat heals by itself within the reset time', async () => {
    const first = chatters[0] as Chatter;
    expect((await turn(first, 'hello before the storm')).done).toMatchObject({ content: REPLY });

    // Half the requests never send a token, the other half go quiet after two.
    let request = 0;
    f.vllm.setFaults(() => (request++ % 2 === 0 ? { stallAfterTokens: 0 } : { stallAfterTokens: 2 }));
    const stalledAt = Date.now();
    const stalled = await Promise.all(chatters.map((chatter, i) => turn(chatter, `are you there? ${i}`)));
    const stallMs = Date.now() - stalledAt;
    const codes: Record<string, number> = {};
    for (const { error, done } of stalled) {
      expect(done).toBeUndefined();
      expect(error).toMatchObject({ retryable: true });
      codes[error.code] = (codes[error.code] ?? 0) + 1;
    }
    for (const code of Object.keys(codes))
      expect(['model_timeout', 'model_stream_broken', 'model_unavailable']).toContain(code);

    f.vllm.setFaults(undefined);
    const healthyAt = Date.now();
    let attempts = 0;
    let recovered: TurnEvents | undefined;
    while (!recovered && Date.now() - healthyAt < RESET_MS + 3 * TIMEOUT_MS) {
      attempts++;
      const outcome = await turn(first, `back yet? ${attempts}`);
      if (outcome.done) recovered = outcome;
      else {
        expect(outcome.error).toMatchObject({ retryable: true });
        // A short pause between retries, as a client honouring retryable would.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const recoverMs = Date.now() - healthyAt;
    expect(recovered?.done).toMatchObject({ content: REPLY });
    expect(recoverMs).toBeLessThanOrEqual(RESET_MS + TIMEOUT_MS);

    // Not just one lucky turn: everybody can chat again, with no restart.
    const after = await Promise.all(chatters.map((chatter, i) => turn(chatter, `all good? ${i}`)));
    expect(after.filter((t) => t.done?.content === REPLY)).toHaveLength(STREAMS);

    const result = {
      streams: STREAMS,
      firstTokenTimeoutMs: TIMEOUT_MS,
      idleTimeoutMs: TIMEOUT_MS,
      breakerResetMs: RESET_MS,
      stalledTurnsEndedMs: stallMs,
      stalledTurnErrors: codes,
      recoverMs,
      recoveryAttempts: attempts,
      at: new Date().toISOString(),
    };
    console.log(`model-stall drill: ${JSON.stringify(result)}`);
    mkdirSync(path.dirname(RESULTS), { recursive: true });
    writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
  }, 120_000);
});
