// Shared mocha settings: TypeScript sources run through tsx; each test file gets its own database,
// so files run in parallel workers.
module.exports = {
  'node-option': ['import=tsx'],
  extension: ['ts'],
  spec: ['src/**/*.test.ts'],
  parallel: true,
  jobs: 2,
  timeout: 30000,
  'forbid-only': Boolean(process.env.CI),
  reporter: require.resolve('./mocha-reporter.cjs'),
};
