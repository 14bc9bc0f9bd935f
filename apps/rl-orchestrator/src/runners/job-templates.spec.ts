import { JOB_TEMPLATES, type TemplateContext } from './job-templates';

const context: TemplateContext = {
  python: '/venv/bin/python',
  snapshotDir: '/rl/snapshots/s1',
  outputDir: '/rl/jobs/j1',
  baseGguf: '/models/base.gguf',
  datasetId: 's1',
  parentAdapter: '/rl/jobs/j0/adapter',
  profilesFile: '/repo/data/sentient/profiles.jsonl',
  threads: 1,
  hyperparameters: {
    maxSteps: 4,
    epochs: 1,
    patience: 2,
    maxKl: 1,
    evalEvery: 2,
    learningRate: 0.005,
    batchSize: 2,
    numGenerations: 4,
    maxCompletionLength: 32,
    sentientTurns: 2,
  },
};

const flag = (argv: string[], name: string) => {
  const at = argv.indexOf(name);
  return at < 0 ? undefined : argv[at + 1];
};

describe('job templates', () => {
  it('trl-grpo trains on the verl export, is rewarded by the labeller and takes the group settings', () => {
    const grpo = JOB_TEMPLATES['trl-grpo'];
    expect(grpo).toMatchObject({ datasetKind: 'verl', producesAdapter: true, rewardedLive: true });
    const argv = grpo.argv(context);
    expect(argv.slice(0, 3)).toEqual(['/venv/bin/python', '-m', 'echoloop_train.trl_grpo']);
    expect([flag(argv, '--num-generations'), flag(argv, '--max-completion-length')]).toEqual(['4', '32']);
    expect(flag(argv, '--parent-adapter')).toBe('/rl/jobs/j0/adapter');
    expect(flag(argv, '--max-kl')).toBe('1');
    expect(flag(argv, '--profiles')).toBe('/repo/data/sentient/profiles.jsonl');
    // The simulated conversations' length goes with the profiles they are played from.
    expect(flag(argv, '--sentient-turns')).toBe('2');
    const chatsOnly = grpo.argv({ ...context, profilesFile: null });
    expect(chatsOnly).not.toContain('--profiles');
    expect(chatsOnly).not.toContain('--sentient-turns');
  });

  it('trl-dpo and trl-grpo share the snapshot, base, parent, budget and trust region flags; only GRPO samples', () => {
    const dpo = JOB_TEMPLATES['trl-dpo'].argv(context);
    const grpo = JOB_TEMPLATES['trl-grpo'].argv(context);
    for (const name of [
      '--snapshot',
      '--output',
      '--base-gguf',
      '--max-steps',
      '--max-kl',
      '--eval-every',
      '--threads',
    ]) {
      expect(flag(dpo, name)).toBe(flag(grpo, name));
    }
    expect(flag(dpo, '--eval-every')).toBe('2');
    expect(flag(dpo, '--num-generations')).toBeUndefined();
    expect(flag(dpo, '--profiles')).toBeUndefined();
    expect(JOB_TEMPLATES['trl-dpo'].rewardedLive).toBe(false);
  });

  it('verl-grpo renders a config, with the profiles its sentient user plays, and leaves nothing to serve', () => {
    const verl = JOB_TEMPLATES['verl-grpo'];
    expect(verl).toMatchObject({ producesAdapter: false, rewardedLive: false });
    expect(flag(verl.argv(context), '--profiles')).toBe('/repo/data/sentient/profiles.jsonl');
    expect(verl.argv({ ...context, profilesFile: null })).not.toContain('--profiles');
  });
});
