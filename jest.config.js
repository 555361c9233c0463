/** @type {import('jest').Config} */
/**
 * Packages published as ECMAScript modules only, which Jest 29's module system cannot require (Node 20 can):
 * compiled to CommonJS like the tests. jose (the identity provider's keys); content-disposition 3 and cookie 2,
 * which the gateway built in-process needs (@fastify/static, fastify's inject: tests/integration/gateway-harness.ts).
 */
const ESM_ONLY = ['jose', 'content-disposition', 'cookie'];
// Transpile only: type checking is `tsc -p tsconfig.tests.json`, run by npm test.
const transform = {
  '^.+\\.ts$': [
    'ts-jest',
    { tsconfig: { isolatedModules: true, module: 'commonjs', target: 'es2022', esModuleInterop: true } },
  ],
  [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: [
    'ts-jest',
    { tsconfig: { isolatedModules: true, module: 'commonjs', target: 'es2022', allowJs: true } },
  ],
};
/** Nothing else under node_modules is transformed. */
const transformIgnorePatterns = [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`];

module.exports = {
  // End-to-end files each start their own servers and services; two at a time fit two cores.
  maxWorkers: 2,
  // A money test may first wait out the clinic's midnight (awayFromMidnight: up to 92 s), then run.
  testTimeout: 150_000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      testMatch: [
        '<rootDir>/libs/*/test/**/*.test.ts',
        '<rootDir>/services/*/test/**/*.test.ts',
        '<rootDir>/tools/*/test/**/*.test.ts',
        '<rootDir>/clients/*/test/**/*.test.ts',
        '<rootDir>/tests/deploy/**/*.test.ts',
      ],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts'],
    },
    {
      displayName: 'faults',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      testMatch: ['<rootDir>/tests/faults/**/*.test.ts'],
    },
    {
      // Every query and write shape the services use, against MONGO_URL or the embedded server (tests/conformance/server.ts).
      displayName: 'conformance',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      testMatch: ['<rootDir>/tests/conformance/**/*.test.ts'],
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'],
    },
  ],
};
