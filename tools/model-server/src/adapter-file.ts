import { statSync } from 'node:fs';
import { join } from 'node:path';

/** The GGUF LoRA a training job's output directory holds next to its PEFT files. */
export const ADAPTER_GGUF = 'adapter.gguf';

/**
 * The file to load for a `lora_path`: the path itself when it is a file, `<dir>/adapter.gguf` for a directory;
 * undefined when there is none.
 */
export function resolveAdapterFile(path: string): string | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats?.isFile()) return path;
  if (!stats?.isDirectory()) return undefined;
  const file = join(path, ADAPTER_GGUF);
  return statSync(file, { throwIfNoEntry: false })?.isFile() ? file : undefined;
}
