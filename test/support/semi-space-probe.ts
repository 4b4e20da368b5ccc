/**
 * Run by test/runtime/worker-thread.test.ts in a process of its own with production's --max-semi-space-size=8:
 * prints the young generation of a thread started with semi-spaces of 16 MB, of one started after it without, and
 * of the main thread, as JSON.
 */
import { WorkerThread } from '../../src/runtime/worker-thread.js';
import { newSpaceMb } from './new-space.js';

const echoWorker = new URL('./echo-worker', import.meta.url);
const sized = new WorkerThread(echoWorker, { greeting: 'big' }, 'echo', undefined, { semiSpaceMb: 16 });
await sized.ready;
const plain = new WorkerThread(echoWorker, { greeting: 'plain' }, 'echo', undefined);
await plain.ready;
const result = { sized: await sized.call('newSpaceMb', []), plain: await plain.call('newSpaceMb', []), main: newSpaceMb() };
await Promise.all([sized.close(), plain.close()]);
process.stdout.write(JSON.stringify(result));
