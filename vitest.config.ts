import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Child processes and real sockets: forks isolate signals and globals per file.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 90_000,
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default'],
  },
});
