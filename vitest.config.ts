import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most test files wait on child processes and servers (the emulator, OpenSSH, PostgreSQL, chromium) more than they
    // compute, so two files at a time on two cores: the suite took 628 s against 840 s one at a time (Vitest's default
    // is one fewer than the cores).
    maxWorkers: Math.max(2, availableParallelism()),
    reporters: ['default'],
  },
});
