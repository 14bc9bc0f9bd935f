import { shellQuote } from './ray-job-runner';

describe('shellQuote (Ray runs the entrypoint through a shell)', () => {
  it('leaves plain words alone and quotes the rest so the shell gives them back unchanged', () => {
    expect(shellQuote('/venv/bin/python')).toBe('/venv/bin/python');
    expect(shellQuote('--learning-rate=5e-4')).toBe('--learning-rate=5e-4');
    expect(shellQuote('a dir/with space')).toBe(`'a dir/with space'`);
    expect(shellQuote(`it's; rm -rf / $(x)`)).toBe(`'it'\\''s; rm -rf / $(x)'`);
  });
});
