/**
 * The import graph's rules (dependency-cruiser), over every TypeScript source of the tree; CI runs
 * `npm run check:imports`. Type-only imports count (tsPreCompilationDeps): a circle of types is still a circle of
 * meaning, and splits what should be one file's vocabulary across two.
 */
module.exports = {
  forbidden: [
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
