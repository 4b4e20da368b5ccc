import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { AlertLog, startConsole } from '../../src/console/index.js';
import type { ItemOutcome, Journal } from '../../src/journal/index.js';
import { testHooks } from '../../src/journal/testing.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { standaloneSource } from '../../src/service/standalone-console.js';
import { tempConfig } from '../service/support.js';
import { CONSOLE_TOKEN, consoleConfig } from './support.js';

/**
 * The console over real HTTP on a journal (SQLite in a temp folder) that `seed` filled first: the pages render what
 * the journal holds, with no file run through a service. The configuration is the one `bridgeWithFailures` runs
 * (job `stock`, adjustments from drop `wms`); the service it names is never called.
 */
export async function seededConsole(seed: (journal: Journal) => Promise<void>, auth?: string) {
  const env = await tempConfig(consoleConfig('http://127.0.0.1:9', auth), { load: false });
  writeFileSync(join(env.dir, 'console-token'), CONSOLE_TOKEN + '\n');
  const runtime = createRuntime(await loadConfig(env.file));
  const journal = await runtime.journal();
  await seed(journal);
  const handler = await startConsole(runtime.loaded, standaloneSource(runtime, new AlertLog()));
  const server = createServer((req, res) => {
    if (!handler(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, journal, journalPath: join(env.dir, 'journal.sqlite'),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await runtime.close();
      env.cleanup();
    },
  };
}

type Row = [sku: string, quantity: number, reference: string, outcome: Omit<ItemOutcome, 'seq'>];

/** One file of job `stock` as the pipeline records it: a row per line from line 2, one request each, then finished. */
export async function seedKorrFile(journal: Journal, name: string, rows: readonly Row[]): Promise<number> {
  const { fileId } = await journal.claimFile({ drop: 'wms', name, checksum: name.padEnd(64, '0'), size: 100 + rows.length * 40, mapping: 'inventory-adjustments' });
  for (const [i, [sku, quantity, reference, outcome]] of rows.entries()) {
    const seq = i + 2;
    const body = { product_code: sku, quantity, company_code: 'ACME', reference };
    const requestId = await testHooks(journal).recordBatch(fileId, 'inventory.adjustments', [{ seq, endpoint: 'inventory.adjustments', docKey: sku, lines: [seq], body }], { sent: true });
    await journal.completeRequest(requestId, [{ seq, ...outcome }]);
  }
  await journal.finishFile(fileId);
  return fileId;
}

/**
 * The journal `bridgeWithFailures` leaves: KORR_a (line 3 refused, too little stock of SKU-00004) and KORR_b (line 2
 * uncertain: the answer to its write was lost).
 */
export async function seedTwoFailures(journal: Journal): Promise<void> {
  await seedKorrFile(journal, 'KORR_a.csv', [
    ['SKU-00001', 1, 'A-1', { status: 'ok', result: { move_id: 501 } }],
    ['SKU-00004', -500, 'A-2', { status: 'error', messages: ['insufficient stock of SKU-00004 at ACME (have 120, need 500)'] }],
    ['SKU-00002', 1, 'A-3', { status: 'ok', result: { move_id: 502 } }],
  ]);
  await seedKorrFile(journal, 'KORR_b.csv', [
    ['SKU-00005', 3, 'B-1', { status: 'uncertain', messages: ['connection reset after the request was sent'], hint: 'check the stock of SKU-00005 for reference B-1' }],
    ['SKU-00001', 1, 'B-2', { status: 'ok', result: { move_id: 503 } }],
  ]);
}
