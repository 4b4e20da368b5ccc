import { describe, expect, it } from 'vitest';
import { adminState, useEmulator } from '../support/emulator.js';
import { memoryLogger } from '../service/support.js';
import { korr, runInboundOnce, workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });

describe('mapping threads of the process (mapping_threads.max)', () => {
  it('big files in flight together wait for a mapping thread: never more at once than the cap, every file done', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 1, mappingThreads: { max: 1, from_bytes: 1 } });
    for (const n of [1, 2, 3]) ws.drop(`KORR_MT${n}.csv`, korr([1, 2, 3].map((r) => `SKU-00001;1;Fund;MT-${n}-${r};19.11.2026;;ACME`)));
    const { logger, records } = memoryLogger();
    const report = await runInboundOnce(ws, logger);
    expect(report.files.map((f) => f.outcome)).toEqual(['done', 'done', 'done']);
    // The job's four files in flight would otherwise have had three threads at once.
    let running = 0;
    let most = 0;
    for (const r of records) {
      if (r.msg === 'the file is mapped and recorded on its own thread') most = Math.max(most, ++running);
      if (r.msg === 'the file mapping thread ended') running--;
    }
    expect(records.filter((r) => r.msg === 'the file is mapped and recorded on its own thread')).toHaveLength(3);
    expect(most).toBe(1);
    expect(running).toBe(0);
    const applied = (await adminState(emu, ['adjustments'])).adjustments as Array<{ reference: string }>;
    expect(applied.filter((a) => a.reference.startsWith('MT-'))).toHaveLength(9);
  });
});
