import { gatewayEnv } from '../env';

const problems = (env: Record<string, string>) => {
  const result = gatewayEnv.safeParse(env);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('bootstrap admin settings', () => {
  it('are optional, and empty values count as unset', () => {
    expect(problems({})).toEqual([]);
    expect(gatewayEnv.parse({ BOOTSTRAP_ADMIN_EMAIL: '', BOOTSTRAP_ADMIN_PASSWORD: '' })).toMatchObject({
      BOOTSTRAP_ADMIN_EMAIL: undefined,
      BOOTSTRAP_ADMIN_PASSWORD: undefined,
    });
  });

  it('take an email (lower-cased) and a password of 12+ characters together', () => {
    expect(
      gatewayEnv.parse({
        BOOTSTRAP_ADMIN_EMAIL: 'Root@Example.com',
        BOOTSTRAP_ADMIN_PASSWORD: 'twelve chars',
      }),
    ).toMatchObject({ BOOTSTRAP_ADMIN_EMAIL: 'root@example.com', BOOTSTRAP_ADMIN_PASSWORD: 'twelve chars' });
  });

  it('refuse one without the other, a bad email and a short password, naming the variable', () => {
    expect(problems({ BOOTSTRAP_ADMIN_EMAIL: 'root@example.com' })).toEqual([
      'BOOTSTRAP_ADMIN_PASSWORD: set both bootstrap admin variables or neither',
    ]);
    expect(problems({ BOOTSTRAP_ADMIN_PASSWORD: 'long enough password' })).toEqual([
      'BOOTSTRAP_ADMIN_EMAIL: set both bootstrap admin variables or neither',
    ]);
    expect(problems({ BOOTSTRAP_ADMIN_EMAIL: 'root', BOOTSTRAP_ADMIN_PASSWORD: 'short' })).toEqual([
      expect.stringMatching(/^BOOTSTRAP_ADMIN_EMAIL: /),
      'BOOTSTRAP_ADMIN_PASSWORD: must be at least 12 characters',
    ]);
  });
});
