import { parseDlqCommand } from './dlq-command';

describe('parseDlqCommand', () => {
  it('reads each verb with its options', () => {
    expect(parseDlqCommand(['topics'])).toEqual({ ok: true, command: { kind: 'topics' } });
    expect(parseDlqCommand(['list', '--topic', 'chat.turn.completed.v1', '--limit', '5'])).toEqual({
      ok: true,
      command: { kind: 'list', topic: 'chat.turn.completed.v1', limit: 5 },
    });
    expect(parseDlqCommand(['inspect', '12'])).toEqual({ ok: true, command: { kind: 'inspect', id: '12' } });
    expect(parseDlqCommand(['replay', '12', '--event', '-'])).toEqual({
      ok: true,
      command: { kind: 'replay', id: '12', eventFile: '-' },
    });
    expect(parseDlqCommand(['drop', '3'])).toEqual({ ok: true, command: { kind: 'drop', id: '3' } });
  });

  it.each([
    [[], 'no command'],
    [['purge'], 'unknown command: purge'],
    [['inspect'], 'inspect needs one dead letter id'],
    [['drop', '0'], 'drop needs one dead letter id'],
    [['replay', '1', '2'], 'replay needs one dead letter id'],
    [['drop', '1', '--event', 'f.json'], '--event is not an option of drop'],
    [['list', '--limit', '500'], '--limit: a whole number from 1 to 100'],
    [['topics', 'extra'], 'unexpected argument: extra'],
    [['replay', '1', '--event', ''], '--event: must name a file, or - for stdin'],
  ])('refuses %j: %s', (argv, message) => {
    expect(parseDlqCommand(argv)).toEqual({ ok: false, message });
  });

  it('refuses an unknown option', () => {
    expect(parseDlqCommand(['list', '--all'])).toMatchObject({ ok: false });
  });
});
