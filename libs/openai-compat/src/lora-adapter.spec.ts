import {
  invalidUserInput,
  loraAlreadyLoadedError,
  loraLoadFailedError,
  loraNotLoadedError,
  loraPathNotFoundError,
} from './lora-adapter';

describe('LoRA adapter errors (vLLM’s OpenAIServingModels)', () => {
  it('refuses bad input as InvalidUserInput 400s', () => {
    expect(invalidUserInput('no')).toEqual({
      error: { message: 'no', type: 'InvalidUserInput', param: null, code: 400 },
    });
    expect(loraAlreadyLoadedError('a').error).toMatchObject({
      code: 400,
      type: 'InvalidUserInput',
      message:
        "The lora adapter 'a' has already been loaded. If you want to load the adapter in place, set " +
        "'load_inplace' to True.",
    });
  });

  it('answers a missing adapter with 404s and a loader failure with a 400 BadRequestError', () => {
    expect(loraPathNotFoundError('a', '/x').error).toEqual({
      message: 'Loading lora a failed: No adapter found for /x',
      type: 'NotFoundError',
      param: null,
      code: 404,
    });
    expect(loraNotLoadedError('a').error).toMatchObject({
      code: 404,
      message: "The lora adapter 'a' cannot be found.",
    });
    expect(loraLoadFailedError('a', 'bad tensor').error).toMatchObject({
      code: 400,
      type: 'BadRequestError',
      message: 'Loading lora a failed: bad tensor',
    });
  });
});
