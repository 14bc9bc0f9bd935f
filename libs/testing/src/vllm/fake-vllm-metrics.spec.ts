import { startFakeVllm } from './start-fake-vllm';

describe('fake vLLM /metrics', () => {
  it('reports its generations in flight as vLLM’s load gauges, and does not record the scrape', async () => {
    const vllm = await startFakeVllm({ faults: { stallAfterTokens: 1 } });
    // The gauge as vLLM 0.32 writes it (libs/llm's vllmLoad reads the same lines).
    const load = async () => {
      const text = await (await fetch(vllm.url.replace(/\/v1$/, '/metrics'))).text();
      const running = /^vllm:num_requests_running\{engine="0",model_name="[^"]+"\} ([0-9.]+)$/m.exec(text);
      const waiting = /^vllm:num_requests_waiting\{engine="0",model_name="[^"]+"\} ([0-9.]+)$/m.exec(text);
      return Number(running?.[1]) + Number(waiting?.[1]);
    };
    try {
      await expect(load()).resolves.toBe(0);
      const held = new AbortController();
      const stream = fetch(`${vllm.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: vllm.model,
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
        }),
        signal: held.signal,
      });
      await stream;
      await expect(load()).resolves.toBe(1);
      held.abort();
      await vllm.whenIdle();
      await expect(load()).resolves.toBe(0);
      expect(vllm.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    } finally {
      await vllm.close();
    }
  });
});
