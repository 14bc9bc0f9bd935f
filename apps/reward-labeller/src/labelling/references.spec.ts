import { type Alternative, referenceFor, referenceNote, sameReference } from './references';

const alternative = (turnId: string, signals: Alternative['signals'] = {}): Alternative => ({
  turnId,
  signals,
  reply: `reply ${turnId}`,
});
const editedAt = '2026-12-02T10:00:00.000Z';

describe('the reference a reply is judged against', () => {
  it("is the user's own edit of it first", () => {
    const mine = alternative('a', { edit: { content: 'What I meant.', editedAt }, kept: false });
    const kept = alternative('b', { kept: true });
    expect(referenceFor(mine, [mine, kept])).toEqual({ source: 'edit', turnId: 'a', text: 'What I meant.' });
  });

  it('else the alternative kept over it, as the user left it (their edit of it, if any)', () => {
    const passed = alternative('a', { kept: false });
    const kept = alternative('b', { kept: true, edit: { content: 'Kept, then fixed.', editedAt } });
    expect(referenceFor(passed, [passed, kept])).toEqual({
      source: 'kept',
      turnId: 'b',
      text: 'Kept, then fixed.',
    });
    // The kept one itself has no reference from the one passed over.
    expect(
      referenceFor(alternative('b', { kept: true }), [passed, alternative('b', { kept: true })]),
    ).toBeNull();
  });

  it('else the best alternative rated higher than it; none when it is unrated or rated best', () => {
    const low = alternative('a', { stars: 2 });
    const mid = alternative('b', { thumbs: -1 });
    const high = alternative('c', { stars: 4 });
    const top = alternative('d', { thumbs: 1 });
    const all = [low, mid, high, top];
    expect(referenceFor(low, all)).toMatchObject({ source: 'rated', turnId: 'd' });
    expect(referenceFor(high, all)).toMatchObject({ source: 'rated', turnId: 'd' });
    expect(referenceFor(top, all)).toBeNull();
    expect(referenceFor(alternative('e'), all)).toBeNull();
  });

  it('is noted on the label by source, turn and digest, so a changed text is a changed reference', () => {
    const reference = { source: 'edit' as const, turnId: 'a', text: 'One.' };
    const note = referenceNote(reference);
    expect(note).toEqual({ source: 'edit', turnId: 'a', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(note)).not.toContain('One.');
    expect(sameReference(note, reference)).toBe(true);
    expect(sameReference(note, { ...reference, text: 'Two.' })).toBe(false);
    expect(sameReference(note, null)).toBe(false);
    expect(sameReference(null, null)).toBe(true);
    expect(sameReference(undefined, null)).toBe(true);
  });
});
