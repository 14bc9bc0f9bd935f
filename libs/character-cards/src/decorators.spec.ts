import { parseDecorators } from './decorators';

describe('parseDecorators', () => {
  it('takes the @@ lines at the top and trims them from the content', () => {
    expect(parseDecorators('@@depth 4\n@@role system\n\nThe broth is secret.\nLine two.')).toEqual({
      decorators: [
        { name: 'depth', values: ['4'] },
        { name: 'role', values: ['system'] },
      ],
      content: 'The broth is secret.\nLine two.',
    });
  });

  it('splits comma-separated values and allows decorators without a value', () => {
    expect(parseDecorators('@@exclude_keys sword, shield ,bow\r\n@@activate\nText').decorators).toEqual([
      { name: 'exclude_keys', values: ['sword', 'shield', 'bow'] },
      { name: 'activate', values: [] },
    ]);
  });

  it('ignores unknown decorators unless a known @@@ fallback follows, and keeps the first of a name', () => {
    const text = '@@risu_only 4\n@@@agn_only 4\n@@@activate_only_after 4\n@@depth 1\n@@depth 9\n@@mine\nBody';
    expect(parseDecorators(text)).toEqual({
      decorators: [
        { name: 'activate_only_after', values: ['4'] },
        { name: 'depth', values: ['1'] },
      ],
      content: 'Body',
    });
  });

  it('skips the fallbacks of a known decorator', () => {
    expect(parseDecorators('@@depth 2\n@@@instruct_depth 5\nBody').decorators).toEqual([
      { name: 'depth', values: ['2'] },
    ]);
  });

  it('leaves content without decorators, or with @@ further down, unchanged', () => {
    expect(parseDecorators('Email me @@ home\n@@depth 3')).toEqual({
      decorators: [],
      content: 'Email me @@ home\n@@depth 3',
    });
  });
});
