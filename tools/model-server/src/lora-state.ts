import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';

const loraStateSchema = z.object({
  adapters: z.array(z.object({ name: z.string().min(1), path: z.string().min(1) })),
});
export type LoraState = z.infer<typeof loraStateSchema>;

/** The registered adapters, or none when the file does not exist; rejects when it cannot be read or parsed. */
export async function readLoraState(file: string): Promise<LoraState> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (typeof error === 'object' && error !== null && Reflect.get(error, 'code') === 'ENOENT') {
      return { adapters: [] };
    }
    throw error;
  }
  return loraStateSchema.parse(JSON.parse(text));
}

/** Written to a temporary file then renamed over the old one, so a crash never leaves half a file. */
export async function writeLoraState(file: string, state: LoraState): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temporary, file);
}
