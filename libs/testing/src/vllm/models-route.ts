import { buildAdapterModelCard, buildBaseModelCard, buildModelList } from '@echoloop/openai-compat';
import type { FakeVllmState } from './fake-vllm-state';
import { sendJson, type Exchange } from './http-exchange';

export function handleListModels(exchange: Exchange, state: FakeVllmState): void {
  const created = state.startedAt;
  const base = buildBaseModelCard({
    id: state.model,
    root: state.modelRoot,
    maxModelLen: state.maxModelLen,
    created,
  });
  const adapters = [...state.adapters.values()].map((adapter) =>
    buildAdapterModelCard({ id: adapter.name, path: adapter.path, baseModel: state.model, created }),
  );
  sendJson(exchange, 200, buildModelList([base, ...adapters]));
}
