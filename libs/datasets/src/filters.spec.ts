import { datasetFilters, filterClause, VERSION_OF_TURN } from './filters';

describe('datasetFilters', () => {
  const conversationId = '6f1c5a3e-1d2b-4c3a-9e8f-0a1b2c3d4e5f';

  it('takes a conversation as turn records identify it (its uuid), and nothing else', () => {
    expect(datasetFilters.parse({ conversationId })).toEqual({ conversationId });
    expect(datasetFilters.safeParse({ conversationId: 'not-a-uuid' }).success).toBe(false);
    expect(datasetFilters.safeParse({ conversationId: `${conversationId}' OR 1=1` }).success).toBe(false);
    expect(datasetFilters.safeParse({ conversation: conversationId }).success).toBe(false);
  });

  it('reads query-string values (numbers as text) and refuses out-of-range scores', () => {
    expect(datasetFilters.parse({ empathyMin: '0.5', starsMax: '4', thumb: 'up' })).toEqual({
      empathyMin: 0.5,
      starsMax: 4,
      thumb: 'up',
    });
    expect(datasetFilters.safeParse({ empathyMin: '2' }).success).toBe(false);
    expect(datasetFilters.safeParse({ starsMin: '0' }).success).toBe(false);
  });
});

describe('filterClause', () => {
  const conversationId = '6f1c5a3e-1d2b-4c3a-9e8f-0a1b2c3d4e5f';

  it('keeps only labelled turns when nothing is asked', () => {
    expect(filterClause({})).toEqual({
      sql: 'cardinality(t.labelled_versions) > 0',
      params: [],
      version: VERSION_OF_TURN,
    });
  });

  it('filters one conversation by its id, as a parameter', () => {
    const { sql, params } = filterClause({ conversationId }, 2);
    expect(sql).toBe('cardinality(t.labelled_versions) > 0 AND t.conversation_id = $2');
    expect(params).toEqual([conversationId]);
    expect(sql).not.toContain(conversationId);
  });

  it('numbers the parameters of combined filters in order', () => {
    const { sql, params } = filterClause(
      { labellerVersion: 'labeller-v1', characterId: conversationId, conversationId, starsMin: 4 },
      1,
    );
    expect(params).toEqual(['labeller-v1', conversationId, conversationId, 4]);
    expect(sql).toContain("t.turn->>'characterId' = $2");
    expect(sql).toContain('t.conversation_id = $3');
    expect(sql).toContain("(t.signals->>'stars')::int >= $4");
    expect(sql.startsWith('$1 = ANY(t.labelled_versions)')).toBe(true);
  });

  it('reads pending turns only when asked: not finished under any version, or under the asked one', () => {
    expect(filterClause({ labelStatus: 'pending' }).sql).toBe('cardinality(t.labelled_versions) = 0');
    const asked = filterClause({ labelStatus: 'pending', labellerVersion: 'labeller-v2' });
    expect(asked).toMatchObject({ sql: 'NOT ($1 = ANY(t.labelled_versions))', params: ['labeller-v2'] });
    expect(filterClause({ labelStatus: 'labelled' }).sql).toContain('cardinality(t.labelled_versions) > 0');
  });
});
