/** @type {import('jest').Config} */
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
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
      testMatch: ['<rootDir>/libs/*/test/**/*.test.ts', '<rootDir>/services/*/test/**/*.test.ts', '<rootDir>/tools/*/test/**/*.test.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts'],
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'],
    },
  ],
};
