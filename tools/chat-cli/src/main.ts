// A plain terminal chat against the gateway: `./echoloop chat [--character Name] [--gateway URL] [--name You]`.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { io } from 'socket.io-client';
import { GatewayClient } from './gateway-client';

const { values: args } = parseArgs({
  options: {
    gateway: { type: 'string', default: process.env['GATEWAY_URL'] ?? 'http://127.0.0.1:3000' },
    character: { type: 'string' },
    name: { type: 'string', default: process.env['USER'] ?? 'You' },
  },
});

const out = (text: string) => process.stdout.write(text);

async function main(): Promise<void> {
  const gateway = new GatewayClient(args.gateway);
  await gateway.signIn(path.resolve(__dirname, '../../../.infra/chat-cli.json'), args.name);
  const { items } = await gateway.call('get', '/v1/characters');
  const character = args.character
    ? items.find((c) => c.name.toLowerCase() === args.character?.toLowerCase())
    : items[0];
  if (!character) throw new Error(`no character ${args.character ?? ''} (seed one with ./echoloop up)`);
  const conversation = await gateway.call('post', '/v1/conversations', {
    body: { characterId: character.id },
  });

  // Asked at every (re)connection, so a reconnect after the access token expired renews the session first.
  const socket = io(`${args.gateway}/chat`, {
    auth: (send) => {
      gateway.freshAccessToken().then(
        (token) => send({ token }),
        () => send({}),
      );
    },
    transports: ['websocket'],
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });

  out(
    `Chatting with ${character.name} (Ctrl-C stops a reply, /quit leaves)\n\n${character.name}: ${conversation.greeting.content}\n`,
  );
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  let streaming: string | undefined;
  rl.on('SIGINT', () => (streaming ? socket.emit('message:stop', { replyId: streaming }) : rl.close()));
  socket.on('message:delta', (event: { delta: string }) => out(event.delta));

  for (;;) {
    const line = (await rl.question('\nyou> ').catch(() => '/quit')).trim();
    if (line === '/quit') break;
    if (!line) continue;
    out(`${character.name}: `);
    const finished = new Promise<void>((resolve) => {
      socket.once('message:done', (done: { finishReason: string; latencyMs: { ttft: number } }) => {
        out(
          done.finishReason === 'cancelled'
            ? ' [stopped]\n'
            : `\n  (first token ${done.latencyMs.ttft} ms)\n`,
        );
        resolve();
      });
      socket.once('message:error', (error: { code: string; message: string; retryable: boolean }) => {
        out(`\n[${error.code}] ${error.message}${error.retryable ? ' (try again)' : ''}\n`);
        resolve();
      });
    });
    const ack = await socket.emitWithAck('message:send', {
      conversationId: conversation.id,
      content: line,
      clientMessageId: randomUUID(),
    });
    streaming = (ack as { replyId?: string }).replyId;
    await finished;
    socket.off('message:done').off('message:error');
    streaming = undefined;
  }
  rl.close();
  socket.disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(`chat: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
