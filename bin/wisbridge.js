#!/usr/bin/env node
// Runs the compiled build (dist/, made by `npm ci` through `prepare`, or `npm run build`) while it is newer than
// every source file; otherwise the TypeScript sources through tsx, so a checkout being edited never runs stale
// code and works without a build step. WISBRIDGE_SOURCES=1 always runs the sources.
import { runsBuild } from './build-state.js';

let main;
if (runsBuild()) {
  ({ main } = await import('../dist/cli/main.js'));
} else {
  (await import('tsx/esm/api')).register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
