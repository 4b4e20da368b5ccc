import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { runInboundJob } from '../../src/pipeline/index.js';
import { adminState, setFaults, useEmulator } from '../support/emulator.js';
import { dropPlainAdjustments } from './crash-support.js';
import { workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });

// The file mapped on the main thread, and on a thread of its own (`mapping_threads.from_bytes: 1`: this small one too).
describe.each([['on the main thread', undefined], ['on its own thread', { from_bytes: 1 }]])('graceful stop between batches, the file mapped %s', (_, mappingThreads) => {

  it('an aborted job finishes the requests in flight, leaves the journal consistent and the file in the inbox; the next run completes it once', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 2, mappingThreads });
    dropPlainAdjustments(ws, 'KORR_STOP.csv', 40, 'G');
    await setFaults(emu, { latency_ms: 50, path_prefix: '/v1/inventory' });
    const stop = new AbortController();
    let runtime = await ws.runtime();
    const first = await runInboundJob(runtime, runtime.loaded.config.inbound[0], {
      signal: stop.signal,
      onProgress: (p) => {
        if (p.rows >= 10) stop.abort();
      },
    });
    await runtime.close();
    expect(first.files.map((f) => f.outcome)).toEqual(['interrupted']);
    expect(first.files[0].rows.uncertain).toBe(0);
    expect(ws.files('inbox')).toEqual(['KORR_STOP.csv']);
    const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
    expect(await journal.backlog()).toMatchObject({ processingFiles: 1, pendingRequests: 0, sentRequests: 0 });
    await journal.close();
    const applied = (await adminState(emu, ['adjustments'])).adjustments.length;
    expect(applied).toBeGreaterThan(0);
    expect(applied).toBeLessThan(40);

    await setFaults(emu, {});
    runtime = await ws.runtime();
    const second = await runInboundJob(runtime, runtime.loaded.config.inbound[0]);
    await runtime.close();
    expect(second.files[0]).toMatchObject({ outcome: 'done', resumed: true, rows: { ok: 40, error: 0, skipped: 0, uncertain: 0 } });
    const references = (await adminState(emu, ['adjustments'])).adjustments.map((a: any) => a.reference).sort();
    expect(references).toEqual(Array.from({ length: 40 }, (_, i) => `G-${i + 1}`).sort());
  });
});
