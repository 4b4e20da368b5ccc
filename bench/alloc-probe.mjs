// Preloaded into the bridge by bench/inbound.ts when BENCH_ALLOC=FILE (`--import`): V8's sampling heap profiler on
// the main thread, counting every allocation (also the objects young and old collections freed), written to FILE as
// a .heapprofile (Chrome DevTools: Memory → Load) when the process exits. What was allocated where is what drives the
// collections; bench/inbound.ts prints the total and the largest allocating functions. Bench-only.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const out = process.env.BENCH_ALLOC;
if (out && isMainThread) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  // The inspector answers synchronously on the main thread, so this completes within 'exit'.
  process.on('exit', () => session.post('HeapProfiler.stopSampling', (error, result) => {
    if (!error) writeFileSync(out, JSON.stringify(result.profile));
  }));
}
