import { configDefaults, defineConfig } from 'vitest/config';

// scoring-golden mocks node:dns/promises, and a module mock only applies where the module is not
// yet loaded: that file runs in a fresh module graph of its own. The rest share a worker's modules
// (isolate: false), which saves each file loading DuckDB, viem and Koa again (see docs/decisions.md).
const isolated = ['test/scoring-golden.test.ts'];

export default defineConfig({
  test: {
    // Tests start real chains, servers and child processes: give them room, and run at most
    // two files at once on this two-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'shared', isolate: false, include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...isolated] } },
      { extends: true, test: { name: 'isolated', include: isolated } },
    ],
  },
});
