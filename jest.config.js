/** @type {import('jest').Config} */
// Transpile only: type checking is `tsc -p tsconfig.tests.json`, run by npm test.
const transform = {
  '^.+\\.ts$': [
    'ts-jest',
    { tsconfig: { isolatedModules: true, module: 'commonjs', target: 'es2022', esModuleInterop: true } },
  ],
};

/**
 * Packages published as ES modules only, which Jest 29 cannot require (Node 20 can): compiled to CommonJS like the
 * tests, for the gateway built in-process (tests/integration/gateway-harness.ts): content-disposition 3 through
 * @fastify/static (the docs' files), cookie 2 through light-my-request (fastify's inject).
 */
const ESM_ONLY = ['content-disposition', 'cookie'];
const withEsmOnly = {
  transform: {
    ...transform,
    [`node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: [
      'ts-jest',
      { tsconfig: { allowJs: true, isolatedModules: true, module: 'commonjs', target: 'es2022' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
};

module.exports = {
  // End-to-end files each start their own servers and services; two at a time fit two cores.
  maxWorkers: 2,
  testTimeout: 60_000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      testMatch: [
        '<rootDir>/libs/*/test/**/*.test.ts',
        '<rootDir>/services/*/test/**/*.test.ts',
        '<rootDir>/tools/*/test/**/*.test.ts',
        '<rootDir>/tests/deploy/**/*.test.ts',
      ],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      ...withEsmOnly,
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts'],
    },
    {
      displayName: 'faults',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/tests/faults/**/*.test.ts'],
    },
    {
      // Every query and write shape the services use, against MONGO_URL or the embedded server (tests/conformance/server.ts).
      displayName: 'conformance',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/tests/conformance/**/*.test.ts'],
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'],
    },
  ],
};
