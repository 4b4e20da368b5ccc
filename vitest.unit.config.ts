import { defineConfig } from 'vitest/config';
import suite from './vitest.config.js';

/**
 * `npm run test:unit`: the tests beside the code (docs/conventions.md: temp folders, SQLite files and fast-check, no
 * server, no emulator, no child process) and the rules over the sources, without the global setup that installs and
 * starts PostgreSQL, OpenSSH and chromium. `npm test` stays the whole suite.
 */
export default defineConfig({
  test: {
    ...suite.test,
    include: ['src/**/*.test.ts', 'test/architecture/**/*.test.ts'],
    globalSetup: [],
    // The files of a worker share their modules: each worker loads the sources through vite once, not once per file,
    // which was most of the unit suite's time (docs/performance.md, "Settings chosen by measurement"). A test that
    // changes a module's state (a setting, an environment variable) puts it back after itself.
    isolate: false,
  },
});
