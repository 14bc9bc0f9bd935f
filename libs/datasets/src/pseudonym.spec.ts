import { pseudonymize } from './pseudonym';

describe('pseudonymize', () => {
  const id = '6f1c5a3e-1d2b-4c3a-9e8f-0a1b2c3d4e5f';

  it('is stable within one key and different across keys and users', () => {
    expect(pseudonymize('key-1', id)).toBe(pseudonymize('key-1', id));
    expect(pseudonymize('key-2', id)).not.toBe(pseudonymize('key-1', id));
    expect(pseudonymize('key-1', id.replace('6f', '7f'))).not.toBe(pseudonymize('key-1', id));
  });

  it('never contains the id', () => {
    const pseudonym = pseudonymize('key-1', id);
    expect(pseudonym).toMatch(/^u_[A-Za-z0-9_-]{22}$/);
    expect(pseudonym).not.toContain(id.slice(0, 8));
  });
});
