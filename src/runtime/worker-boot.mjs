// Entry of every worker thread of WorkerThread (worker-thread.ts): a worker thread starts without the main thread's
// tsx loader, so a TypeScript module (the sources) registers tsx first; the build's JavaScript is imported as it is.
import { workerData } from 'node:worker_threads';

if (workerData.module.endsWith('.ts')) (await import('tsx/esm/api')).register();
await import(workerData.module);
