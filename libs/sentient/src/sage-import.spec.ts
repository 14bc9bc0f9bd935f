import { makeProfile } from './fixtures.spec-helper';
import { HIDDEN_NEEDS } from './profile';
import { parseProfilesJsonl } from './profiles-jsonl';
import { hiddenNeedFromTask, importSageProfile } from './sage-import';
import { parseAge } from './sage-markdown';

// A hand-written row in the SAGE format (persona bullets, headed scene, hidden-theme footer).
const player = [
  '* 姓名：周一鸣',
  '* 年龄：31岁',
  '* 性别：男性',
  '* 职业：地铁调度员',
  '',
  '* 个人爱好：',
  '1. 周一鸣喜欢夜跑，沿着河边跑十公里。',
  '2. 他收集老式收音机，周末会去旧货市场淘货。',
  '3. 他爱下围棋，常在网上和陌生人对弈。',
  '',
  '* 习惯和行为特点：',
  '周一鸣做事谨慎，出门前会反复检查门锁。',
  '他不喜欢麻烦别人，遇到问题习惯自己扛。',
  '',
  '* 说话风格：',
  '说话简短，语气平淡，偶尔带点自嘲。',
  '',
  '* 说话方式：',
  '周一鸣不太主动开启话题，通常等对方发问后才回应。',
].join('\n');

const scene = [
  '## 背景故事',
  '',
  '**事件起因：**',
  '周一鸣的调度班组换了新组长，新组长把一次列车延误的责任推到他身上。',
  '',
  '- **第一阶段：延误当天（两周前）**',
  '  信号故障导致列车晚点，他按规程处理，却在例会上被点名批评。',
  '',
  '**主要冲突：**',
  '- **冲突事件：** 组长在全组面前说他处理不当。',
  '- **冲突内在原因：** 组长想在上级面前撇清自己。',
  '',
  '**玩家遇到的困难：**',
  '- **尝试过但没有成功的解决方案：** 他提交了操作记录，没人回复。',
  '',
  '**事件的当前状态：**',
  '他每天上班都提不起劲，考虑申请调岗。',
  '',
  '### 玩家不同状态下可能的反应',
  '- **角色emotion高（平和、放松）时：** 愿意讲更多细节，语气轻松。',
  '- **角色emotion一般（急躁、失落）时：** 回答变短，有些不耐烦。',
  '- **角色emotion低（激动、绝望）时：** 冷淡敷衍，想结束对话。',
  '',
  '### 角色面对NPC不同回复的反应',
  '- **NPC的回复贴合隐藏主题（emotion上升）：** 明确认可他按规程操作、没有过错。',
  '- **NPC的回复偏离隐藏主题（emotion下降）：** 劝他反思自己哪里做得不够。',
  '####隐藏主题:',
  '***你觉得这件事里自己没有任何责任，希望对方也认同你没有错',
].join('\n');

const row = {
  id: '0b7d2a4e-5f1c-4c53-9a41-1f7e9d3c2b10',
  player,
  scene,
  main_cha: '回避型',
  cha_group: ['谨慎', '内向', '敏感'],
  task: '你觉得这件事里自己没有任何责任，希望对方也认同你没有错',
  first_talk: '最近上班挺没劲的。',
};

describe('importSageProfile', () => {
  it('maps a realistic benchmark row', () => {
    const result = importSageProfile(row, 'benchmark');
    if (!result.ok) throw new Error(result.error);
    const { profile } = result;
    expect(profile).toMatchObject({
      id: row.id,
      pool: 'benchmark',
      personaType: 'avoidant',
      traits: ['谨慎', '内向', '敏感'],
      hiddenNeed: 'reassurance-not-at-fault',
      firstMessage: '最近上班挺没劲的。',
      topic: 'not recorded',
      source: { player, scene },
    });
    expect(profile.persona).toMatchObject({
      name: '周一鸣',
      age: 31,
      gender: 'male',
      occupation: '地铁调度员',
      initiative: 'passive',
    });
    expect(profile.persona.hobbies).toHaveLength(3);
    expect(profile.persona.hobbies[0]).toBe('周一鸣喜欢夜跑，沿着河边跑十公里。');
    expect(profile.persona.habits).toContain('反复检查门锁');
    expect(profile.persona.speakingStyle).toContain('自嘲');
    expect(profile.persona.speakingStyle).toContain('不太主动');
    expect(profile.scene.background).toContain('推到他身上');
    expect(profile.scene.background).toContain('信号故障');
    expect(profile.scene.conflict).toContain('全组面前');
    expect(profile.scene.conflict).toContain('撇清');
    expect(profile.scene.difficulties).toContain('操作记录');
    expect(profile.scene.currentState).toContain('调岗');
    expect(profile.scene.reactions.high).toContain('语气轻松');
    expect(profile.scene.reactions.medium).toContain('不耐烦');
    expect(profile.scene.reactions.low).toContain('冷淡敷衍');
    expect(profile.scene.raisesEmotion).toContain('没有过错');
    expect(profile.scene.lowersEmotion).toContain('反思');
    expect(profile.scene.lowersEmotion).not.toContain('希望对方也认同');
  });

  it('imports a training row without first_talk; a benchmark row needs it', () => {
    const { first_talk: _omit, ...training } = row;
    const train = importSageProfile(training, 'train');
    expect(train.ok && train.profile.firstMessage).toBeUndefined();
    expect(importSageProfile(training, 'benchmark')).toMatchObject({ ok: false });
  });

  it('reads an active speaking manner and the other persona types', () => {
    const active = importSageProfile(
      { ...row, main_cha: '负面型', player: player.replace(/不太主动开启话题.*/, '喜欢用反问引导对话。') },
      'train',
    );
    expect(active.ok && [active.profile.personaType, active.profile.persona.initiative]).toEqual([
      'negative',
      'active',
    ]);
    const passive = importSageProfile({ ...row, main_cha: '被动型' }, 'train');
    expect(passive.ok && passive.profile.personaType).toBe('passive');
  });

  it('rejects unknown types, unmatched tasks and malformed rows', () => {
    expect(importSageProfile({ ...row, main_cha: '主动型' }, 'train')).toMatchObject({ ok: false });
    expect(importSageProfile({ ...row, task: '随便聊聊' }, 'train')).toMatchObject({ ok: false });
    expect(importSageProfile({ ...row, cha_group: ['谨慎'] }, 'train')).toMatchObject({ ok: false });
    expect(importSageProfile({ id: 'x' }, 'train')).toMatchObject({ ok: false });
    expect(importSageProfile('not an object', 'train')).toMatchObject({ ok: false });
  });
});

describe('hiddenNeedFromTask', () => {
  it.each([
    ['希望对方辩证地看待事情里的问题', 'dialectical-analysis'],
    ['想要一些真正能帮我走出困境的建议', 'practical-advice'],
    ['想弄明白事件中其他人物为什么这么做', 'understand-others'],
    ['希望对方引导我做自我反思', 'guided-self-reflection'],
    ['希望对方具体地夸奖我做过的事', 'praise-for-actions'],
    ['希望对方耐心倾听我的情绪宣泄', 'listen-while-venting'],
    ['希望对方真正共情我的感受，而不是随口安慰', 'deep-empathy'],
    ['认为自己没有任何责任，想要对方认同我没有错', 'reassurance-not-at-fault'],
  ])('%s → %s', (task, need) => {
    expect(hiddenNeedFromTask(task)).toBe(need);
  });

  it('accepts our own keys and rejects the rest', () => {
    for (const need of HIDDEN_NEEDS) expect(hiddenNeedFromTask(need)).toBe(need);
    expect(hiddenNeedFromTask('聊聊天')).toBeUndefined();
  });
});

describe('parseAge', () => {
  it.each([
    ['23岁', 23],
    ['三十五岁', 35],
    ['十九岁', 19],
    ['二十岁', 20],
    ['八岁', 8],
    ['unknown', undefined],
  ])('%s → %p', (text, age) => {
    expect(parseAge(text)).toBe(age);
  });
});

describe('parseProfilesJsonl', () => {
  it('keeps valid lines and reports the others by line number', () => {
    const good = JSON.stringify(makeProfile());
    const text = [
      good,
      '',
      '{not json',
      JSON.stringify({ ...makeProfile({ id: 'p-2' }), traits: ['one'] }),
      good,
      JSON.stringify(makeProfile({ id: 'p-3' })),
    ].join('\n');
    const { profiles, errors } = parseProfilesJsonl(text);
    expect(profiles.map((profile) => profile.id)).toEqual(['p-1', 'p-3']);
    expect(errors.map((error) => error.line)).toEqual([3, 4, 5]);
    expect(errors[0]?.error).toMatch(/^not JSON/);
    expect(errors[1]?.error).toContain('traits');
    expect(errors[2]?.error).toContain('duplicate id');
  });
});
