import { createSseDataParser, formatSseData, parseSseData, SSE_DONE } from './sse';

describe('SSE framing', () => {
  it('frames one JSON payload per event and ends with [DONE]', () => {
    expect(formatSseData({ a: 1 })).toBe('data: {"a":1}\n\n');
    expect(SSE_DONE).toBe('data: [DONE]\n\n');
  });

  it('parses payloads back, across arbitrary chunk boundaries and CRLF line ends', () => {
    const text = `${formatSseData({ a: 1 })}: comment\n\n${formatSseData({ b: 'x y' })}${SSE_DONE}`;
    expect(parseSseData(text)).toEqual(['{"a":1}', '{"b":"x y"}', '[DONE]']);

    const parser = createSseDataParser();
    const payloads = [...text.replaceAll('\n', '\r\n')].flatMap((char) => parser.push(char));
    expect(payloads).toEqual(['{"a":1}', '{"b":"x y"}', '[DONE]']);
  });

  it('holds back an event until its blank line arrives', () => {
    const parser = createSseDataParser();
    expect(parser.push('data: {"a":1}\n')).toEqual([]);
    expect(parser.push('\n')).toEqual(['{"a":1}']);
  });
});
