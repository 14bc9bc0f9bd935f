import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');

/** `[stage] message` on stdout: the loop's transcript. */
export function say(stage: string, message: string): void {
  process.stdout.write(`[${stage}] ${message}\n`);
}

export const seconds = (ms: number): number => Math.round(ms / 100) / 10;

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
