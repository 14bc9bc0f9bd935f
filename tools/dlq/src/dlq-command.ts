import { parseArgs } from 'node:util';

export const USAGE =
  'usage: ./echoloop dlq topics                     how many letters each topic has parked\n' +
  '       ./echoloop dlq list [--topic T] [--status parked|replayed|dropped] [--limit N]\n' +
  '       ./echoloop dlq inspect ID                 one letter: why it was parked, its message and headers\n' +
  '       ./echoloop dlq replay ID [--event FILE]   send it back to its topic, as it was or corrected (FILE, - for stdin)\n' +
  '       ./echoloop dlq drop ID                    mark it dropped (it stays listed as such)\n' +
  'Calls the gateway (GATEWAY_URL, default http://127.0.0.1:3000) as an admin: ECHOLOOP_ADMIN_EMAIL and\n' +
  'ECHOLOOP_ADMIN_PASSWORD, or an access token in ECHOLOOP_TOKEN.\n';

export type DlqCommand =
  | { kind: 'topics' }
  | { kind: 'list'; topic?: string; status?: string; limit?: number }
  | { kind: 'inspect' | 'drop'; id: string }
  | { kind: 'replay'; id: string; eventFile?: string };

type Parsed = { ok: true; command: DlqCommand } | { ok: false; message: string };

const ID = /^[1-9][0-9]{0,17}$/;

/** `dlq <verb> ...` as typed after `./echoloop dlq`; a message naming the problem otherwise. */
export function parseDlqCommand(argv: readonly string[]): Parsed {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const [verb, ...rest] = parsed.positionals;
  const { topic, status, limit, event } = parsed.values;
  const only = (allowed: string[]): string | null => {
    const given = Object.entries(parsed.values).filter(([, value]) => value !== undefined);
    const stray = given.find(([name]) => !allowed.includes(name));
    return stray ? `--${stray[0]} is not an option of ${verb}` : null;
  };
  switch (verb) {
    case 'topics': {
      const problem = only([]) ?? (rest.length > 0 ? `unexpected argument: ${rest.join(' ')}` : null);
      return problem ? { ok: false, message: problem } : { ok: true, command: { kind: 'topics' } };
    }
    case 'list': {
      const problem =
        only(['topic', 'status', 'limit']) ??
        (rest.length > 0 ? `unexpected argument: ${rest.join(' ')}` : null);
      if (problem) return { ok: false, message: problem };
      const count = limit === undefined ? undefined : Number(limit);
      if (count !== undefined && (!Number.isInteger(count) || count < 1 || count > 100)) {
        return { ok: false, message: '--limit: a whole number from 1 to 100' };
      }
      return {
        ok: true,
        command: {
          kind: 'list',
          ...(topic !== undefined && { topic }),
          ...(status !== undefined && { status }),
          ...(count !== undefined && { limit: count }),
        },
      };
    }
    case 'inspect':
    case 'drop':
    case 'replay': {
      const problem = only(verb === 'replay' ? ['event'] : []);
      if (problem) return { ok: false, message: problem };
      const [id, ...extra] = rest;
      if (!id || extra.length > 0 || !ID.test(id))
        return { ok: false, message: `${verb} needs one dead letter id` };
      if (verb !== 'replay') return { ok: true, command: { kind: verb, id } };
      if (event === '') return { ok: false, message: '--event: must name a file, or - for stdin' };
      return { ok: true, command: { kind: 'replay', id, ...(event !== undefined && { eventFile: event }) } };
    }
    default:
      return { ok: false, message: verb ? `unknown command: ${verb}` : 'no command' };
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      topic: { type: 'string' },
      status: { type: 'string' },
      limit: { type: 'string' },
      event: { type: 'string' },
    },
  });
}
