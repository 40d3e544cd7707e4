import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests spawn the built binary; two cores, so keep parallelism modest.
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
  },
});
