import { stripThink } from './think';

describe('stripThink', () => {
  it('drops closed blocks, text before a stray close and text after an unclosed open', () => {
    expect(stripThink('<think>a</think>b<THINK>c</THINK>d')).toBe('bd');
    expect(stripThink('thinking...</think>answer')).toBe('answer');
    expect(stripThink('answer<think>cut off')).toBe('answer');
    expect(stripThink('plain')).toBe('plain');
  });
});
