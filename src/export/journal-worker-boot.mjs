// Entry of the journal worker thread (journal-writer.ts): the worker is TypeScript, and a worker thread starts
// without the main thread's tsx loader, so it registers tsx itself.
import { register } from 'tsx/esm/api';

register();
await import('./journal-worker.ts');
