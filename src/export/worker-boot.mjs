// Entry of every worker thread of WorkerThread (worker-thread.ts): the worker modules are TypeScript, and a worker
// thread starts without the main thread's tsx loader, so it registers tsx itself before loading the module.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);
