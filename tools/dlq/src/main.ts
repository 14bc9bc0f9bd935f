// `./echoloop dlq topics|list|inspect|replay|drop`: the dead letters through the gateway's admin API, signed in
// as an admin (staff keys never hold the admin role). Results on stdout. Exit codes: 0 done, 1 failed (the gateway away or erring), 2 bad
// arguments, 3 refused (no such letter, resolved already, still invalid).
import { ServiceCallError, ServiceClient } from '@echoloop/platform';
import type { GatewayPaths } from '@echoloop/vocabulary';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type DlqCommand, parseDlqCommand, USAGE } from './dlq-command';
import { letterTable, topicTable } from './tables';

type Gateway = ServiceClient<GatewayPaths>;

async function readEvent(file: string): Promise<Record<string, unknown>> {
  let text: string;
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
  } else {
    text = await readFile(path.resolve(process.env['ECHOLOOP_CALLER_DIR'] || process.cwd(), file), 'utf8');
  }
  const event: unknown = JSON.parse(text);
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new Error('--event: the file must hold one JSON object (the corrected event)');
  }
  return event as Record<string, unknown>;
}

class UsageError extends Error {}

/** An admin's access token: ECHOLOOP_TOKEN as it is, or a sign-in with ECHOLOOP_ADMIN_EMAIL and _PASSWORD. */
async function signIn(baseUrl: string): Promise<string> {
  const token = process.env['ECHOLOOP_TOKEN'];
  if (token) return token;
  const email = process.env['ECHOLOOP_ADMIN_EMAIL'];
  const password = process.env['ECHOLOOP_ADMIN_PASSWORD'];
  if (!email || !password) {
    throw new UsageError(
      `sign in as an admin: set ECHOLOOP_ADMIN_EMAIL and ECHOLOOP_ADMIN_PASSWORD (or ECHOLOOP_TOKEN)\n${USAGE}`,
    );
  }
  const auth: Gateway = new ServiceClient('chat-gateway', { baseUrl });
  const { accessToken } = await auth.call('post', '/v1/auth/login', { body: { email, password } });
  return accessToken;
}

async function run(gateway: Gateway, command: DlqCommand): Promise<string> {
  switch (command.kind) {
    case 'topics':
      return topicTable((await gateway.call('get', '/v1/dead-letters/topics')).items);
    case 'list': {
      const { kind: _, ...query } = command;
      const page = await gateway.call('get', '/v1/dead-letters', { query: query as never });
      return (
        letterTable(page.items) + (page.nextBefore ? `(older letters: --before is ${page.nextBefore})\n` : '')
      );
    }
    case 'inspect':
      return `${JSON.stringify(await gateway.call('get', '/v1/dead-letters/{id}', { path: { id: command.id } }), null, 2)}\n`;
    case 'drop': {
      const letter = await gateway.call('post', '/v1/dead-letters/{id}/drop', { path: { id: command.id } });
      return `dropped ${letter.id} (${letter.topic} ${letter.partition}/${letter.offset})\n`;
    }
    case 'replay': {
      const event = command.eventFile === undefined ? undefined : await readEvent(command.eventFile);
      const letter = await gateway.call('post', '/v1/dead-letters/{id}/replay', {
        path: { id: command.id },
        body: event === undefined ? {} : { event },
      });
      return `replayed ${letter.id} to ${letter.topic} as event ${letter.replayedEventId ?? '?'}\n`;
    }
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseDlqCommand(argv);
  if (!parsed.ok) {
    process.stderr.write(`${parsed.message}\n${USAGE}`);
    return 2;
  }
  const baseUrl = process.env['GATEWAY_URL'] || 'http://127.0.0.1:3000';
  let gateway: Gateway;
  try {
    gateway = new ServiceClient('chat-gateway', { baseUrl, bearer: await signIn(baseUrl) });
  } catch (error) {
    process.stderr.write(`dlq: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
  try {
    process.stdout.write(await run(gateway, parsed.command));
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`dlq: ${message}\n`);
    return error instanceof ServiceCallError && !error.transient ? 3 : 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`dlq: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
