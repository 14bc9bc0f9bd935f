/**
 * The import graph's rules (dependency-cruiser), over every TypeScript source of the tree; CI runs
 * `npm run check:imports`. Type-only imports count (tsPreCompilationDeps): a circle of types is still a circle of
 * meaning, and splits what should be one file's vocabulary across two.
 */

/**
 * Each app's floors, top first: a module may import its own floor and the ones below, never one above. The top
 * floor wires the app (its module and entry point); the bottom holds what every part reads (env, tokens). The
 * names are folders of the app's src/, or root files.
 */
const FLOORS = {
  'chat-gateway': [
    ['app.module.ts', 'main.ts', 'web-app.ts', 'cluster'],
    ['openai'],
    ['chat'],
    ['director', 'memory', 'persona'],
    ['experiments', 'datasets', 'dead-letters', 'staff-services', 'users'],
    ['conversations'],
    ['characters', 'checkpoints'],
    ['auth'],
    ['limits', 'side-work', 'safety'],
    ['common'],
    ['env.ts', 'body-limits.ts', 'gateway-config.module.ts'],
  ],
  'reward-labeller': [
    ['app.module.ts', 'main.ts'],
    ['backfill', 'scoring', 'intake'],
    ['labelling'],
    ['judges'],
    ['env.ts', 'tokens.ts', 'body-limits.ts'],
  ],
  'rl-orchestrator': [
    ['app.module.ts', 'main.ts'],
    ['api'],
    ['triggers'],
    ['pipeline'],
    ['gate'],
    ['snapshot', 'serving'],
    ['runners', 'clients'],
    ['jobs'],
    ['env.ts', 'tokens.ts', 'service-name.ts', 'body-limits.ts'],
  ],
  'eval-runner': [
    ['app.module.ts', 'main.ts', 'cli.ts'],
    ['evaluations', 'simulator'],
    ['sentient'],
    ['report'],
    ['env.ts', 'tokens.ts', 'body-limits.ts', 'catalog.ts'],
  ],
};

const escape = (name) => name.replace(/[.]/g, '\\.');
const floorPath = (app, names) => `^apps/${app}/src/(${names.map(escape).join('|')})(/|$)`;

/** For each floor, a rule that it imports nothing above it. */
const noImportUp = Object.entries(FLOORS).flatMap(([app, floors]) =>
  floors.slice(1).map((names, index) => ({
    name: 'no-import-up',
    severity: 'error',
    comment: `In ${app}, ${names.join(', ')} may not import a floor above it (see FLOORS): move the shared part down.`,
    // An entry point (main.ts) wires what it runs, wherever it sits.
    from: { path: floorPath(app, names), pathNot: ['\\.(spec|int-spec)\\.ts$', '/main\\.ts$'] },
    to: { path: floorPath(app, floors.slice(0, index + 1).flat()) },
  })),
);

/** Every folder and root file of an app's src/ has a floor, so a new one cannot slip past the rule. */
const everyPartHasAFloor = Object.entries(FLOORS).map(([app, floors]) => ({
  name: 'floor-unknown',
  severity: 'error',
  comment: `A part of ${app}'s src/ with no floor: add it to FLOORS in .dependency-cruiser.cjs.`,
  from: { path: `^apps/${app}/src/`, pathNot: [floorPath(app, floors.flat()), '\\.(spec|int-spec)\\.ts$'] },
  to: {},
}));

module.exports = {
  forbidden: [
    ...noImportUp,
    ...everyPartHasAFloor,
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Two modules that import each other, directly or through others, are one module: give the shared part a home.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|\\.infra|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
