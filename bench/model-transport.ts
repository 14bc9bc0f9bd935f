// What the model client costs the turn path per request: the openai SDK against libs/llm's ChatCompletionsTransport
// (node:http, kept-alive sockets) and plain fetch, each streaming the same short answer from a server in another
// process that answers at once. Prints time to the first chunk (p50/p99) and this process's CPU per request (the
// client's alone), and writes bench/results/model-transport.json.
//
//   node -r @swc-node/register bench/model-transport.ts [--requests 500] [--messages 40]
import { ChatCompletionsTransport } from '@echoloop/llm';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { formatTable, log, writeBenchResult } from './bench-env';
import { summarize, type Summary } from './stats';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '500' },
    messages: { type: 'string', default: '40' },
  },
});
const REQUESTS = Number(values.requests);

// Answers every POST with a role chunk, five content chunks, a usage chunk and [DONE], at once.
const SERVER = `
const http = require('node:http');
const chunk = (delta, finish = null) => 'data: ' + JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1,
  model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }) + '\\n\\n';
const body = chunk({ role: 'assistant', content: '' }) + ['a', ' b', ' c', ' d', ' e'].map((c) => chunk({ content: c })).join('')
  + chunk({ content: '' }, 'stop') + 'data: ' + JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1,
  model: 'm', choices: [], usage: { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 } }) + '\\n\\ndata: [DONE]\\n\\n';
http.createServer((req, res) => { req.resume(); req.on('end', () => {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' }); res.end(body); }); })
  .listen(0, '127.0.0.1', function () { console.log('http://127.0.0.1:' + this.address().port + '/v1'); });
`;

type Client = (signal: AbortSignal) => Promise<number>;

async function main(): Promise<void> {
  const server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = String((await createInterface({ input: server.stdout })[Symbol.asyncIterator]().next()).value);
  const request = {
    model: 'm',
    messages: Array.from({ length: Number(values.messages) }, (_, i) => ({
      role: i % 2 ? ('assistant' as const) : ('user' as const),
      content: 'a message of a conversation that has gone on for a while now',
    })),
    stream: true as const,
    stream_options: { include_usage: true },
  };
  const sdk = new OpenAI({ baseURL: url, apiKey: 'none', maxRetries: 0 });
  const transport = new ChatCompletionsTransport({ baseUrl: url, apiKey: 'none' });
  // Each resolves with the time from the call to the first chunk, after reading the whole answer.
  const clients: Record<string, Client> = {
    'openai SDK': async (signal) => {
      const started = performance.now();
      let first = 0;
      for await (const _chunk of await sdk.chat.completions.create(request, { signal }))
        first ||= performance.now() - started;
      return first;
    },
    ChatCompletionsTransport: async (signal) => {
      const started = performance.now();
      let first = 0;
      for await (const data of transport.stream(request, signal)) {
        JSON.parse(data);
        first ||= performance.now() - started;
      }
      return first;
    },
    fetch: async (signal) => {
      const started = performance.now();
      const res = await fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer none' },
        body: JSON.stringify(request),
        signal,
      });
      let first = 0;
      for await (const _chunk of res.body!) first ||= performance.now() - started;
      return first;
    },
  };
  const results: { client: string; firstChunkMs: Summary; cpuMsPerRequest: number }[] = [];
  try {
    for (const [name, call] of Object.entries(clients)) {
      const signal = new AbortController().signal;
      for (let i = 0; i < 50; i++) await call(signal);
      const firsts: number[] = [];
      const cpu = process.cpuUsage();
      for (let i = 0; i < REQUESTS; i++) firsts.push(await call(signal));
      const used = process.cpuUsage(cpu);
      results.push({
        client: name,
        firstChunkMs: summarize(firsts),
        cpuMsPerRequest: Math.round(((used.user + used.system) / 1000 / REQUESTS) * 1000) / 1000,
      });
      log(`${name}: done`);
    }
  } finally {
    transport.close();
    server.kill();
  }
  const table =
    `\nModel client per streamed request (${REQUESTS} requests one after another, ${values.messages} messages)\n` +
    formatTable(
      ['client', 'first chunk p50/p99 ms', 'client CPU ms/request'],
      results.map((r) => [
        r.client,
        `${r.firstChunkMs.p50} / ${r.firstChunkMs.p99}`,
        String(r.cpuMsPerRequest),
      ]),
    );
  process.stdout.write(table);
  process.stdout.write(
    `wrote ${writeBenchResult('model-transport.json', { requests: REQUESTS, results }, table)}\n`,
  );
}

void main();
