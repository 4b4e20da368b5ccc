import { setFlagsFromString } from 'node:v8';

/**
 * V8 flags the bridge sets on itself when it starts (src/cli/main.ts): NODE_OPTIONS does not accept them.
 * - liftoff-only: undici parses HTTP with llhttp, compiled to WebAssembly. V8 compiles it first with its baseline
 *   compiler (Liftoff) and, once it has run a while, again with TurboFan on a background thread — and a process whose
 *   work is done waits for that compilation before it exits: a noticeable part of a `wisbridge batch` run of one
 *   small file, and some peak RSS on a million rows. llhttp on Liftoff measured no slower: the bridge's CPU equal
 *   within the noise on 1,000 answers of 1,000 items and on 1,000 of 100 (docs/performance.md, "Settings chosen by
 *   measurement").
 */
export const V8_FLAGS = ['--liftoff-only'] as const;

export function applyV8Flags(): void {
  for (const flag of V8_FLAGS) setFlagsFromString(flag);
}
