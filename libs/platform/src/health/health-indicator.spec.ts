import { checkReadiness, type HealthIndicator } from './health-indicator';

const up = (name: string): HealthIndicator => ({ name, check: async () => undefined });
const down = (name: string, message: string): HealthIndicator => ({
  name,
  check: async () => {
    throw new Error(message);
  },
});
const hanging = (name: string): HealthIndicator => ({ name, check: () => new Promise(() => undefined) });

describe('checkReadiness', () => {
  it('is ok when every dependency answers', async () => {
    const report = await checkReadiness([up('database'), up('kafka')], 100);
    expect(report.status).toBe('ok');
    expect(report.checks['database']?.status).toBe('up');
  });

  it('reports the failing dependency and why', async () => {
    const report = await checkReadiness([up('database'), down('kafka', 'connection refused')], 100);
    expect(report.status).toBe('unavailable');
    expect(report.checks['kafka']).toMatchObject({ status: 'down', error: 'connection refused' });
  });

  it('does not hang on a dependency that never answers', async () => {
    const report = await checkReadiness([hanging('kafka')], 50);
    expect(report.checks['kafka']).toMatchObject({
      status: 'down',
      error: 'kafka did not answer within 50 ms',
    });
  });
});
