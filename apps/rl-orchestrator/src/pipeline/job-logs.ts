/** What a template prints for the orchestrator: `ECHOLOOP_PROGRESS {json}` lines and `ECHOLOOP_MANIFEST <path>`. */
const PROGRESS = 'ECHOLOOP_PROGRESS ';
const MANIFEST = 'ECHOLOOP_MANIFEST ';
export const LOG_TAIL_LINES = 40;

export interface ParsedLogs {
  /** Training points (stage `train` events with a step), in order. */
  curve: Record<string, unknown>[];
  /** Validation points (stage `validate` events): loss, accuracy, margin and KL to the parent, in order. */
  validation: Record<string, unknown>[];
  /** The last progress event of any stage. */
  last: Record<string, unknown> | null;
  manifestPath: string | null;
  tail: string;
}

export function parseJobLogs(logs: string): ParsedLogs {
  const curve: Record<string, unknown>[] = [];
  const validation: Record<string, unknown>[] = [];
  let last: Record<string, unknown> | null = null;
  let manifestPath: string | null = null;
  const lines = logs.split('\n');
  for (const line of lines) {
    const at = line.indexOf(PROGRESS);
    if (at >= 0) {
      try {
        const event = JSON.parse(line.slice(at + PROGRESS.length)) as Record<string, unknown>;
        last = event;
        if (typeof event['step'] === 'number') {
          if (event['stage'] === 'train') curve.push(event);
          if (event['stage'] === 'validate') validation.push(event);
        }
      } catch {
        // A line cut by the log's chunking: the next poll reads it whole.
      }
    } else if (line.startsWith(MANIFEST)) manifestPath = line.slice(MANIFEST.length).trim();
  }
  const tail = lines
    .filter((line) => line.trim())
    .slice(-LOG_TAIL_LINES)
    .join('\n');
  return { curve, validation, last, manifestPath, tail };
}
