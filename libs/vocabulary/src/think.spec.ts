import { readFileSync } from 'node:fs';
import path from 'node:path';
import { stripThink } from './think';

/** The cases the Python reward function (`echoloop_verl.reward_fn.split_reply`) is held to as well. */
const shared = JSON.parse(readFileSync(path.join(__dirname, 'think-cases.json'), 'utf8')) as {
  output: string;
  reply: string;
}[];

describe('stripThink', () => {
  it('drops closed blocks, text before a stray close and text after an unclosed open', () => {
    expect(stripThink('<think>a</think>b<THINK>c</THINK>d')).toBe('bd');
    expect(stripThink('thinking...</think>answer')).toBe('answer');
    expect(stripThink('answer<think>cut off')).toBe('answer');
    expect(stripThink('plain')).toBe('plain');
  });

  it.each(shared)('reads $output as Python does', ({ output, reply }) => {
    expect(stripThink(output).trim()).toBe(reply);
  });
});
