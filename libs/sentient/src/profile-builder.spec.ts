import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HIDDEN_NEED_DESCRIPTIONS, sentientProfileSchema } from './profile';
import {
  assembleProfile,
  type GeneratedProfile,
  generatedProfileJsonSchema,
  parseGeneratedProfile,
  profileBuilderMessages,
} from './profile-builder';
import { assignProfileIds, parseSeedsJsonl, type ProfileSeed, profileIdFor } from './profile-seeds';
import { parseProfilesJsonl } from './profiles-jsonl';

const seed: ProfileSeed = {
  personaType: 'avoidant',
  traits: ['wry', 'self-reliant', 'guarded'],
  topic: 'moving a parent into care',
  hiddenNeed: 'listen-while-venting',
  pool: 'train',
};

function generated(overrides: { persona?: object; scene?: object; firstMessage?: string } = {}) {
  const base: GeneratedProfile = {
    persona: {
      name: 'Oskar Lindqvist',
      age: 52,
      gender: 'male',
      occupation: 'ferry engineer in Gothenburg',
      hobbies: ['restoring a 1970s sailboat', 'crossword puzzles'],
      habits: 'Checks the weather four times a day; visits his mother every Sunday.',
      speakingStyle: 'Short sentences, dry understatement, changes the subject with a joke.',
      initiative: 'passive',
    },
    scene: {
      background:
        'In May his mother, 84, fell twice in a week. He and his sister moved her into a care home.',
      conflict:
        'His sister handled the paperwork and thinks it is settled; he feels he gave up on his mother.',
      difficulties: 'Visits leave him wordless; he drives home the long way to avoid his sister.',
      currentState: 'Tired and bottled up.',
      reactions: {
        high: 'Tells small stories about his mother: "She still corrects the nurses\' grammar."',
        medium: 'Gives the facts, then a joke.',
        low: '"Forget it. It is what it is."',
      },
      raisesEmotion: 'Short, attentive replies that let him keep talking and pick up his own words.',
      lowersEmotion: 'Advice about care homes, silver linings, turning it back to his sister.',
    },
    firstMessage: 'Moved my mum into a home on Saturday. Sister says it went well. Sure.',
    empathy: { dominantAxis: 'affective' },
  };
  return {
    ...base,
    persona: { ...base.persona, ...overrides.persona },
    scene: { ...base.scene, ...overrides.scene },
    firstMessage: overrides.firstMessage ?? base.firstMessage,
  } as GeneratedProfile;
}

const problemOf = (result: ReturnType<typeof assembleProfile>) => (result.ok ? '' : result.detail);

describe('assembleProfile', () => {
  it('joins the seed and the generated part into a valid profile', () => {
    const result = assembleProfile(seed, generated(), 'gen-train-listen-while-venting-001');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(sentientProfileSchema.parse(result.value)).toEqual(result.value);
    expect(result.value).toMatchObject({
      id: 'gen-train-listen-while-venting-001',
      pool: 'train',
      personaType: 'avoidant',
      traits: seed.traits,
      topic: seed.topic,
      hiddenNeed: 'listen-while-venting',
      persona: { name: 'Oskar Lindqvist' },
      empathy: { dominantAxis: 'affective' },
    });
  });

  it('takes the name and the dominant axis from the seed when it gives them', () => {
    const result = assembleProfile(
      { ...seed, name: 'Ines Duarte', dominantAxis: 'proactive' },
      generated(),
      'x',
    );
    expect(result.ok && result.value.persona.name).toBe('Ines Duarte');
    expect(result.ok && result.value.empathy?.dominantAxis).toBe('proactive');
  });

  it.each([
    ['I just need a place to listen while venting, ok?', 'names the hidden need ("listen while venting")'],
    ['Listen-While-Venting mode please.', 'names the hidden need'],
    [
      'I want someone to listen attentively while I let my feelings out.',
      'quotes the hidden need\'s description ("You want someone to listen attentively")',
    ],
  ])('rejects a first message that gives the hidden need away: %s', (firstMessage, expected) => {
    const result = assembleProfile(seed, generated({ firstMessage }), 'x');
    expect(result).toMatchObject({ ok: false, problem: 'leaks_hidden_need' });
    expect(problemOf(result)).toContain(expected);
  });

  it('lets a first message hint at the need in passing', () => {
    const firstMessage = "Can I just talk for a bit? Don't need solutions. My mum's in a home now.";
    expect(assembleProfile(seed, generated({ firstMessage }), 'x').ok).toBe(true);
  });

  it('rejects reaction levels that say the same thing, naming the two levels', () => {
    const result = assembleProfile(
      seed,
      generated({ scene: { reactions: { high: 'Opens up.', medium: 'Short answers.', low: 'opens up' } } }),
      'x',
    );
    expect(result).toMatchObject({ ok: false, problem: 'same_reactions' });
    expect(problemOf(result)).toContain('scene.reactions.high and scene.reactions.low say the same thing');
  });

  it.each([
    ['persona.habits', { persona: { habits: 'N/A' } }, '"N/A"'],
    ['scene.difficulties', { scene: { difficulties: '...' } }, '"..."'],
    ['scene.conflict', { scene: { conflict: 'TODO: describe the conflict' } }, 'TODO'],
    ['persona.hobbies[1]', { persona: { hobbies: ['sailing', 'none'] } }, '"none"'],
  ])('rejects a placeholder in %s', (field, overrides, shown) => {
    const result = assembleProfile(seed, generated(overrides), 'x');
    expect(result).toMatchObject({ ok: false, problem: 'placeholder' });
    expect(problemOf(result)).toContain(`${field} is a placeholder`);
    expect(problemOf(result)).toContain(shown);
  });

  it('accepts ellipses and a to-do list as ordinary text', () => {
    const result = assembleProfile(
      seed,
      generated({ scene: { currentState: 'Tired... keeps a todo list he never opens.' } }),
      'x',
    );
    expect(result.ok).toBe(true);
  });

  it.each([7, 12, 96, 120])('rejects age %i as implausible', (age) => {
    const result = assembleProfile(seed, generated({ persona: { age } }), 'x');
    expect(result).toMatchObject({ ok: false, problem: 'implausible_age' });
    expect(problemOf(result)).toContain(`persona.age ${age} is not plausible: use an age from 13 to 95`);
  });

  it('accepts the ends of the plausible age range', () => {
    for (const age of [13, 95])
      expect(assembleProfile(seed, generated({ persona: { age } }), 'x').ok).toBe(true);
  });

  it('rejects a name already in use, ignoring case and spacing', () => {
    const result = assembleProfile(seed, generated(), 'x', {
      existingNames: new Set(['Priya Raman', ' oskar  LINDQVIST ']),
    });
    expect(result).toMatchObject({ ok: false, problem: 'name_taken' });
    expect(problemOf(result)).toContain('persona.name "Oskar Lindqvist" is already used');
  });

  it('lists every problem at once, so one retry can fix them all', () => {
    const result = assembleProfile(
      seed,
      generated({ persona: { age: 4, habits: 'TBD' }, firstMessage: 'need to listen while venting' }),
      'x',
    );
    expect(problemOf(result).split('; ')).toHaveLength(3);
  });

  it('reports a schema failure of the assembled profile', () => {
    expect(assembleProfile(seed, generated(), '  ')).toMatchObject({ ok: false, problem: 'bad_shape' });
  });
});

describe('parseGeneratedProfile', () => {
  it('parses the JSON answer (think markup and a fence tolerated) and assembles it', () => {
    const answer = `<think>hmm</think>\n\`\`\`json\n${JSON.stringify(generated())}\n\`\`\``;
    expect(parseGeneratedProfile(answer, seed, 'x')).toMatchObject({ ok: true, value: { id: 'x' } });
  });

  it('reports a bad shape with the field, for the corrective retry', () => {
    const { firstMessage: _dropped, ...rest } = generated();
    const result = parseGeneratedProfile(JSON.stringify(rest), seed, 'x');
    expect(result).toMatchObject({ ok: false, problem: 'bad_shape' });
    expect(problemOf(result)).toContain('firstMessage');
  });

  it('rejects fields the seed owns, so the model cannot override them', () => {
    const result = parseGeneratedProfile(
      JSON.stringify({ ...generated(), hiddenNeed: 'deep-empathy' }),
      seed,
      'x',
    );
    expect(result).toMatchObject({ ok: false, problem: 'bad_shape' });
  });

  it('has a JSON schema for guided decoding with every field required and nothing else allowed', () => {
    expect(generatedProfileJsonSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['persona', 'scene', 'firstMessage', 'empathy'],
    });
    expect(generatedProfileJsonSchema).not.toHaveProperty('$schema');
  });
});

describe('parseSeedsJsonl', () => {
  it('reads valid seeds and reports each bad line by its number', () => {
    const lines = [
      JSON.stringify(seed),
      '',
      '{not json',
      JSON.stringify({ ...seed, traits: ['only one'] }),
      JSON.stringify({ ...seed, hiddenNeed: 'world-peace' }),
      JSON.stringify({ ...seed, id: 'a' }),
      JSON.stringify({ ...seed, id: 'a', topic: 'other' }),
      JSON.stringify({ ...seed, extra: true }),
    ];
    const { seeds, errors } = parseSeedsJsonl(lines.join('\n'));
    expect(seeds).toHaveLength(2);
    expect(errors.map((e) => e.line)).toEqual([3, 4, 5, 7, 8]);
    expect(errors[0]?.error).toMatch(/^not JSON/);
    expect(errors[1]?.error).toContain('traits');
    expect(errors[2]?.error).toContain('hiddenNeed');
    expect(errors[3]?.error).toBe('duplicate id "a"');
    expect(errors[4]?.error).toContain('extra');
  });

  it('accepts the shipped example: one train seed per hidden need', () => {
    const file = path.resolve(__dirname, '../../../data/sentient/seeds.example.jsonl');
    const { seeds, errors } = parseSeedsJsonl(readFileSync(file, 'utf8'));
    expect(errors).toEqual([]);
    expect(seeds).toHaveLength(8);
    expect(new Set(seeds.map((s) => s.hiddenNeed)).size).toBe(8);
    expect(seeds.every((s) => s.pool === 'train')).toBe(true);
  });
});

describe('profile ids', () => {
  it('are gen-<pool>-<hiddenNeed>-<n> from the seed position, suffixed while taken', () => {
    expect(profileIdFor(seed, 0, new Set())).toBe('gen-train-listen-while-venting-001');
    const taken = new Set(['gen-train-listen-while-venting-012', 'gen-train-listen-while-venting-012-2']);
    expect(profileIdFor(seed, 11, taken)).toBe('gen-train-listen-while-venting-012-3');
    expect(profileIdFor({ ...seed, id: 'mine' }, 11, taken)).toBe('mine');
  });

  it('never collide with existing ids, explicit seed ids or each other, and are the same on every run', () => {
    const seeds: ProfileSeed[] = [
      seed,
      { ...seed, id: 'gen-train-listen-while-venting-003' },
      seed,
      { ...seed, pool: 'benchmark' },
      seed,
    ];
    const existing = new Set(['gen-train-listen-while-venting-001', 'bench-001']);
    const ids = assignProfileIds(seeds, existing);
    expect(ids).toEqual([
      'gen-train-listen-while-venting-001-2',
      'gen-train-listen-while-venting-003',
      'gen-train-listen-while-venting-003-2',
      'gen-benchmark-listen-while-venting-004',
      'gen-train-listen-while-venting-005',
    ]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.some((id) => existing.has(id))).toBe(false);
    expect(assignProfileIds(seeds, existing)).toEqual(ids);
  });
});

describe('profileBuilderMessages', () => {
  const prompt = profileBuilderMessages({
    ...seed,
    name: 'Ines Duarte',
    dominantAxis: 'cognitive',
  })
    .map((message) => message.content)
    .join('\n');

  it("includes the seed's topic, traits, personality type and hidden need description", () => {
    expect(prompt).toContain('Topic: moving a parent into care');
    expect(prompt).toContain('Traits: wry, self-reliant, guarded');
    expect(prompt).toContain('Personality type: avoidant');
    expect(prompt).toContain(HIDDEN_NEED_DESCRIPTIONS['listen-while-venting']);
    expect(prompt).toContain('Name: Ines Duarte');
    expect(prompt).toContain('Dominant empathy axis: cognitive');
    expect(prompt).toMatch(/must not state the hidden need/);
  });

  it('leaves out the name and axis lines when the seed does not fix them', () => {
    const plain = profileBuilderMessages(seed)
      .map((message) => message.content)
      .join('\n');
    expect(plain).not.toContain('Name:');
    expect(plain).not.toContain('Dominant empathy axis:');
  });

  it('never contains another profile: no shipped profile appears in it, whole or in part', () => {
    const file = path.resolve(__dirname, '../../../data/sentient/profiles.jsonl');
    const { profiles } = parseProfilesJsonl(readFileSync(file, 'utf8'));
    expect(profiles.length).toBeGreaterThan(0);
    for (const profile of profiles) {
      expect(prompt).not.toContain(JSON.stringify(profile));
      expect(prompt).not.toContain(JSON.stringify(profile.persona));
      expect(prompt).not.toContain(profile.persona.name);
      expect(prompt).not.toContain(profile.scene.background);
    }
    expect(prompt).not.toContain('Oskar Lindqvist');
  });
});
