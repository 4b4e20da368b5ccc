import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExportTuning } from '../../src/export/index.js';
import { records, resetEmulator, useEmulator } from '../support/emulator.js';
import { MAPPING_OF, captureLogger, setUp, type Setup } from './helpers.js';

// medium seed: enough pending shipments for many pages (the thread takes over after the first ones)
const emu = useEmulator({ scale: 'medium' });
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.cleanup();
  setup = undefined;
});

const pendingIds = async () =>
  (await records(emu, 'customer_shipments', (r) => r.warehouse_id === 1 && r.list_status === 'pending')).map((r) => r.id as number).sort((a, b) => a - b);

/** One export pass on a freshly seeded service: the work files' bytes in order, what it acknowledged, its log. */
async function exportWith(tuning: ExportTuning) {
  await resetEmulator(emu, { seed: 1, scale: 'medium', today: '2026-11-22' });
  const pending = await pendingIds();
  const log = captureLogger();
  setup = await setUp(emu, [{ name: 'so', work_type: 'customerShipments', mapping: MAPPING_OF.customerShipments, max_records_per_file: 1_500 }], { logger: log.logger });
  const summary = await setup.run('so', { tuning });
  // bytes as latin1 text: compared exactly, and much faster than Buffers by toEqual
  const files = setup.outboxFiles().map((f) => readFileSync(join(setup!.outbox, f)).toString('latin1'));
  const stillPending = await pendingIds();
  await setup.cleanup();
  setup = undefined;
  const decoded = log.lines.find((l) => l.msg.startsWith('export: pages decoded'))?.pages as { thread: number; main: number };
  const left = new Set(stillPending);
  const acknowledged = pending.filter((id) => !left.has(id));
  return { pending, summary, files, acknowledged, decoded, warnings: log.lines.filter((l) => l.level === 40).map((l) => l.msg as string) };
}

describe('pending pages decoded on the page thread', () => {
  it('on the thread, switching to it once it is ready or when the count is large, on the main thread, and after the thread failed to start: the same files, the same records acknowledged', async () => {
    const main = await exportWith({ pageThreadFrom: Infinity });
    const pages = Math.ceil(main.pending.length / 100);
    expect(pages).toBeGreaterThan(5);
    expect(main.decoded).toEqual({ thread: 0, main: pages });
    expect(main.summary).toMatchObject({ listed: main.pending.length, exported: main.pending.length, exitCode: 0 });
    expect(main.pending.length).toBeGreaterThan(1_500); // files of more than one acknowledgement chunk (1,000)
    expect(main.files.length).toBe(Math.ceil(main.pending.length / 1_500));
    expect(main.acknowledged).toEqual(main.pending);

    const thread = await exportWith({ pageThreadFrom: 0 });
    const midway = await exportWith({ pageThreadFrom: 300, pageThreadWaitFrom: Infinity });
    // counted above pageThreadWaitFrom: the thread starts on the count and pages wait for it (page 1, requested
    // beside the count, may be decoded before the count is in)
    const counted = await exportWith({ pageThreadFrom: 300, pageThreadWaitFrom: 300 });
    // a thread that cannot hold even its modules dies while it starts: the main thread decodes every page
    const starved = await exportWith({ pageThreadFrom: 0, pageThreadLimits: { maxOldGenerationSizeMb: 1, maxYoungGenerationSizeMb: 1 } });

    expect(thread.decoded).toEqual({ thread: pages, main: 0 });
    // on the main thread until the thread is ready (how many pages that is depends on the machine)
    expect(midway.decoded.main).toBeGreaterThanOrEqual(3);
    expect(midway.decoded.thread + midway.decoded.main).toBe(pages);
    expect(counted.decoded.main).toBeLessThanOrEqual(1);
    expect(counted.decoded.thread + counted.decoded.main).toBe(pages);
    expect(starved.decoded).toEqual({ thread: 0, main: pages });
    expect(starved.warnings).toContain('export: the page thread failed; pages are decoded on the main thread');
    for (const run of [thread, midway, counted, starved]) {
      expect(run.pending).toEqual(main.pending);
      expect(run.summary).toMatchObject({ listed: main.summary.listed, exported: main.summary.exported, skipped: 0, exitCode: 0 });
      expect(run.files).toEqual(main.files);
      expect(run.acknowledged).toEqual(main.acknowledged);
    }
  });
});
