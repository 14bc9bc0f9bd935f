import { parseOpsCommand } from './ops-command';

describe('ops command line', () => {
  it('reads backup with and without --out', () => {
    expect(parseOpsCommand(['backup'])).toEqual({ ok: true, command: { kind: 'backup', out: null } });
    expect(parseOpsCommand(['backup', '--out', '/srv/b'])).toEqual({
      ok: true,
      command: { kind: 'backup', out: '/srv/b' },
    });
  });

  it('reads restore with a folder and --force', () => {
    expect(parseOpsCommand(['restore', 'b1'])).toEqual({
      ok: true,
      command: { kind: 'restore', backup: 'b1', force: false },
    });
    expect(parseOpsCommand(['restore', '--force', 'b1'])).toEqual({
      ok: true,
      command: { kind: 'restore', backup: 'b1', force: true },
    });
  });

  it.each([
    [['backup', 'extra'], /unexpected argument: extra/],
    [['backup', '--force'], /--force is an option of restore/],
    [['backup', '--out', ''], /--out: must name a folder/],
    [['backup', '--out'], /--out/],
    [['restore'], /one backup folder/],
    [['restore', 'a', 'b'], /one backup folder/],
    [['restore', 'a', '--out', 'x'], /--out is an option of backup/],
    [['restore', 'a', '--yes'], /Unknown option '--yes'/],
    [['dump'], /unknown command: dump/],
    [[], /no command/],
  ])('refuses %j naming the problem', (argv, message) => {
    const result = parseOpsCommand(argv);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(message);
  });
});
