import { buildAdapterModelCard, buildBaseModelCard, buildModelList, modelListSchema } from './model-list';
import { loraLoadedMessage, loraUnloadedMessage } from './lora-adapter';

describe('model list', () => {
  it('lists the base model and LoRA adapters with root and parent as vLLM does', () => {
    const list = buildModelList([
      buildBaseModelCard({ id: 'base', root: '/models/base', maxModelLen: 4096, created: 1 }),
      buildAdapterModelCard({ id: 'ckpt-v2', path: '/adapters/v2', baseModel: 'base', created: 2 }),
    ]);
    expect(modelListSchema.parse(list)).toEqual(list);
    expect(list.data).toEqual([
      {
        id: 'base',
        object: 'model',
        created: 1,
        owned_by: 'vllm',
        root: '/models/base',
        parent: null,
        max_model_len: 4096,
        permission: [expect.objectContaining({ object: 'model_permission', allow_sampling: true })],
      },
      {
        id: 'ckpt-v2',
        object: 'model',
        created: 2,
        owned_by: 'vllm',
        root: '/adapters/v2',
        parent: 'base',
        max_model_len: null,
        permission: [expect.objectContaining({ object: 'model_permission', allow_sampling: true })],
      },
    ]);
  });

  it('words LoRA success messages like vLLM', () => {
    expect(loraLoadedMessage('a')).toBe("Success: LoRA adapter 'a' added successfully.");
    expect(loraUnloadedMessage('a')).toBe("Success: LoRA adapter 'a' removed successfully.");
  });
});
