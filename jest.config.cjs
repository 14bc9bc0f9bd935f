// One Jest run covers every project; suites are split by kind, not by project:
//   *.spec.ts      unit: no network, no stack
//   *.int-spec.ts  integration: the real local stack (PostgreSQL, Kafka, model server)
//   *.outage-spec.ts  disruptive: stops and restarts stack components, so it runs alone, after the others
// Same compiler and path aliases as the build: the repo's .swcrc.
const swc = ['@swc/jest', { swcrc: true, sourceMaps: 'inline' }];

const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  // @nestjs/typeorm 12 and hyparquet-writer ship ES modules only; Node loads them natively (require(esm)), Jest
  // needs them compiled.
  transform: { '^.+\\.ts$': swc, '/node_modules/(@nestjs/typeorm|hyparquet-writer|hyparquet)/.+\\.js$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs/typeorm|hyparquet-writer|hyparquet)/)'],
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.infra/'],
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/**/*.int-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/tools/test/integration-setup.cjs'],
      slowTestThreshold: 20,
    },
    {
      ...shared,
      displayName: 'disruptive',
      testMatch: ['<rootDir>/**/*.outage-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/tools/test/integration-setup.cjs'],
    },
  ],
};
