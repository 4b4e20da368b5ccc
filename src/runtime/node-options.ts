/**
 * The Node.js options a long-running bridge should run with (deploy/wisbridge.service, the Dockerfile and the
 * inbound benchmark use exactly these; test/service/deploy.test.ts keeps them in step).
 * - max-old-space-size: V8 collects lazily and lets garbage grow RSS well past the live data, which stays small
 *   whatever the file size; 128 MB leaves room above it and keeps a million-row file within the memory sizing.
 * - max-semi-space-size: a cap on the old space also shrinks V8's default young generation, and a small one promotes
 *   the documents of the requests in flight. 8 MB since a large file is mapped on its own thread (BatchesThread): the
 *   main thread then only sends, and 16 MB added RSS (past the sizing at a million rows) for no measurable gain
 *   (docs/performance.md, "Settings chosen by measurement"). The flag applies to every isolate V8 creates, so a
 *   mapping thread, which wants 16 MB, raises it while it starts (src/runtime/young-generation.ts).
 */
export const NODE_OPTIONS = ['--max-old-space-size=128', '--max-semi-space-size=8'] as const;
