import { defineConfig } from 'vitest/config';

/**
 * The conformance suite's client scenarios start their clients all at once and time some
 * of them (sse-retry's reconnect within 200 ms): on a 2-core machine they are judged only
 * when nothing else runs, so they form a second group that starts after the first ends.
 */
const TIMED_ALONE = ['test/conformance/conformance-client.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most files wait on child processes, sockets and databases rather than compute, so two
    // forks on two cores keep both busy (vitest's default here is one: cores − 1).
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'weft', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: TIMED_ALONE, sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: 'alone', include: TIMED_ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
