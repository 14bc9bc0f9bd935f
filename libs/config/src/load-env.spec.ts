import { z } from 'zod';
import { EnvValidationError, loadEnv, port, serviceEnv } from './index';

const appEnv = serviceEnv.extend({ PORT: port(3000), MODEL_URL: z.url() });

describe('loadEnv', () => {
  it('applies defaults and coerces types', () => {
    const env = loadEnv(appEnv, { MODEL_URL: 'http://127.0.0.1:18000/v1', KAFKA_BROKERS: 'a:1, b:2' });
    expect(env.PORT).toBe(3000);
    expect(env.KAFKA_BROKERS).toEqual(['a:1', 'b:2']);
    expect(env.DATABASE_URL).toMatch(/^postgres:\/\/.*:55432\//);
    expect(Object.isFrozen(env)).toBe(true);
  });

  it('names every missing or malformed variable', () => {
    let error: unknown;
    try {
      loadEnv(appEnv, { PORT: 'eighty', DATABASE_URL: 'mysql://x' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EnvValidationError);
    const problems = (error as EnvValidationError).problems.join('\n');
    expect(problems).toMatch(/^PORT: /m);
    expect(problems).toMatch(/^DATABASE_URL: /m);
    expect(problems).toMatch(/^MODEL_URL: missing/m);
  });

  it('never echoes the value of a bad variable (it may be a secret)', () => {
    expect(() => loadEnv(appEnv, { MODEL_URL: 'not a url with s3cr3t' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('s3cr3t') }),
    );
  });
});
