import { setFlagsFromString } from 'node:v8';

/**
 * The process's --max-semi-space-size in MB, undefined when V8 sizes the semi-spaces itself: from NODE_OPTIONS (how
 * deploy/ and the Dockerfile pass it) and the command line, which Node reads after NODE_OPTIONS (the last one wins).
 */
export function processSemiSpaceMb(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): number | undefined {
  let mb: number | undefined;
  for (const arg of [...nodeOptions.split(/\s+/), ...execArgv]) {
    const m = /^--max[-_]semi[-_]space[-_]size=(\d+)$/.exec(arg);
    if (m) mb = Number(m[1]);
  }
  return mb;
}

/** V8's young generation is two semi-spaces and a large-object space of the same size. */
const YOUNG_PER_SEMI = 3;

let starting = 0;

/**
 * Semi-spaces of `semiMb` for a worker thread about to start: what its Worker's resource limits ask for, and `done`,
 * to call once the thread runs. A Worker's own young generation limit is ignored when the process runs with
 * --max-semi-space-size (production's NODE_OPTIONS): V8 reads that flag for every isolate it creates. So while such
 * a thread starts the flag is raised, and set back to the process's value when the last starting thread runs; the
 * main isolate keeps the semi-spaces it was created with (V8 sizes a heap once, when its isolate is made).
 */
export function youngGenerationFor(semiMb: number): { maxYoungGenerationSizeMb: number; done: () => void } {
  const maxYoungGenerationSizeMb = semiMb * YOUNG_PER_SEMI;
  const processMb = processSemiSpaceMb();
  if (processMb === undefined || processMb >= semiMb) return { maxYoungGenerationSizeMb, done: () => undefined };
  if (starting++ === 0) setFlagsFromString(`--max-semi-space-size=${semiMb}`);
  let finished = false;
  const done = () => {
    if (finished) return;
    finished = true;
    if (--starting === 0) setFlagsFromString(`--max-semi-space-size=${processMb}`);
  };
  return { maxYoungGenerationSizeMb, done };
}
