/** A WorkerThread module for test/runtime/worker-thread.test.ts: answers, refuses, or dies while answering (handlers are synchronous). */
import { WisbridgeError } from '../../src/errors.js';
import { serveCalls, threadData } from '../../src/runtime/worker-serve.js';
import { newSpaceMb } from './new-space.js';

const { greeting } = threadData() as { greeting: string };

serveCalls({
  echo: (value: unknown) => ({ greeting, value }),
  refuse: (message: string) => {
    throw new WisbridgeError('CONTRACT_VIOLATION', message, { details: { endpoint: 'customerShipments.list' } });
  },
  die: () => process.exit(3),
  newSpaceMb,
});

