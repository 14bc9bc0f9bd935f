import { adminPasswordSchema, parseAdminCommand } from './admin-command';

describe('admin command line', () => {
  it('reads create with an email, a name and --password-stdin', () => {
    expect(
      parseAdminCommand(['create', '--email', 'Ops@Example.com', '--name', ' Ops ', '--password-stdin']),
    ).toEqual({ ok: true, command: { email: 'ops@example.com', name: 'Ops', passwordStdin: true } });
  });

  it('defaults the name and generates the password unless told otherwise', () => {
    expect(parseAdminCommand(['create', '--email', 'ops@example.com'])).toEqual({
      ok: true,
      command: { email: 'ops@example.com', name: 'Admin', passwordStdin: false },
    });
  });

  it.each([
    [['create'], /--email/],
    [['create', '--email', 'not an email'], /--email/],
    [['create', '--email', 'ops@example.com', '--name', 'a\u0000b'], /--name: must not contain NUL/],
    [['create', '--email', 'ops@example.com', '--name', 'a\u0007b'], /--name: must not contain control/],
    [['create', '--email', 'ops@example.com', '--password', 'x'], /Unknown option '--password'/],
    [['delete', '--email', 'ops@example.com'], /unknown command: delete/],
    [[], /no command/],
  ])('refuses %j naming the problem', (argv, message) => {
    const result = parseAdminCommand(argv);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(message);
  });

  it('wants admin passwords of 12 to 128 characters', () => {
    expect(adminPasswordSchema.safeParse('short pass').success).toBe(false);
    expect(adminPasswordSchema.safeParse('a long enough one').success).toBe(true);
    expect(adminPasswordSchema.safeParse('x'.repeat(129)).success).toBe(false);
  });
});
