/** Response headers of a streamed completion (vLLM's StreamingResponse sends the same content type). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
} as const;

export const SSE_DONE = 'data: [DONE]\n\n';

export function formatSseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

export interface SseDataParser {
  /** Feeds raw text; returns the `data:` payloads of every event completed by it (`[DONE]` included). */
  push(text: string): string[];
}

export function createSseDataParser(): SseDataParser {
  let buffer = '';
  return {
    push(text) {
      buffer = (buffer + text).replaceAll('\r\n', '\n');
      const payloads: string[] = [];
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''));
        if (data.length > 0) payloads.push(data.join('\n'));
        end = buffer.indexOf('\n\n');
      }
      return payloads;
    },
  };
}

export function parseSseData(text: string): string[] {
  return createSseDataParser().push(text);
}
