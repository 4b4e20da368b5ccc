/**
 * The Node.js options a long-running bridge should run with (deploy/wisbridge.service, the Dockerfile and the
 * inbound benchmark use exactly these; test/service/deploy.test.ts keeps them in step).
 * - max-old-space-size: V8 collects lazily and lets garbage grow RSS well past the live data (~40 MB whatever the
 *   file size); with a cap a million-row file peaks at ~180 MB RSS instead of ~260 MB. 128 MB leaves room above it.
 * - max-semi-space-size: a cap on the old space also shrinks V8's default young generation, and a small one promotes
 *   the documents of the requests in flight. 8 MB since a large file is mapped on its own thread (BatchesThread): the
 *   main thread then only sends, and 16 MB added ~20 MB of RSS (over 200 MB at a million rows) for no measurable
 *   gain. The flag applies to every isolate V8 creates, so a mapping thread, which wants 16 MB, raises it while it
 *   starts (src/runtime/young-generation.ts).
 */
export const NODE_OPTIONS = ['--max-old-space-size=128', '--max-semi-space-size=8'] as const;
