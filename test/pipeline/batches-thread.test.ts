import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { adminState, resetEmulator, useEmulator } from '../support/emulator.js';
import { memoryLogger } from '../service/support.js';
import { runInboundJob } from '../../src/pipeline/index.js';
import { exportAckStatuses, exportAwaitingConfirmation, flatShipMapping, INBOUND_SAMPLES, korr, runInboundOnce, workspace as anyWorkspace, type WorkspaceOptions } from './helpers.js';

// Big files are mapped and recorded on a worker thread (src/pipeline/batches-thread.ts); here every file is.
const emu = useEmulator({ resetEachTest: true });
const workspace = (options: WorkspaceOptions) => anyWorkspace({ ...options, mappingThreads: { from_bytes: 1, ...options.mappingThreads } });

/** What the bridge logs (debug) when a file is mapped on its own thread. */
const ON_THREAD = 'the file is mapped and recorded on its own thread';

describe('a file mapped and recorded on its own thread', () => {
  it('adjustments in batches of 2: refused, rejected and applied rows reported row by row, each applied once', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 2 });
    ws.drop('KORR_THREAD.csv', korr([
      'SKU-00001;1;Fund;T-1;19.11.2026;;ACME',
      'SKU-00002;-100000;Bruch;T-2;19.11.2026;;ACME',
      'SKU-00004;2;Fund;T-3;19.11.2026;;ACME',
      'SKU-00005;oops;Fund;T-4;19.11.2026;;ACME',
      'SKU-00006;3;Fund;T-5;19.11.2026;;ACME',
    ]));
    const { logger, records } = memoryLogger();
    const file = (await runInboundOnce(ws, logger)).files[0];
    expect(records.filter((r) => r.msg === ON_THREAD)).toHaveLength(1);
    expect(file.outcome).toBe('failed');
    expect(file.rows).toEqual({ ok: 3, error: 2, skipped: 0, uncertain: 0 });
    expect(file.requests).toBe(2);
    const rows = ws.result('KORR_THREAD.result.csv');
    expect(rows.map((r) => `${r.line}:${r.status}`)).toEqual(['2:ok', '3:error', '4:ok', '5:error', '6:ok']);
    expect(rows[1].message).toMatch(/insufficient stock of SKU-00002/);
    expect(rows[3].message).toBe('KORR_THREAD.csv, line 5, column Menge: "oops" is not a number');
    expect(rows[0].move_id).toMatch(/^\d+$/);
    const applied = (await adminState(emu, ['adjustments'])).adjustments as Array<{ reference: string }>;
    expect(applied.map((a) => a.reference).sort()).toEqual(['T-1', 'T-3', 'T-5']);
    const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
    expect(await journal.backlog()).toMatchObject({ processingFiles: 0, pendingRequests: 0, sentRequests: 0 });
    await journal.close();
  });

  it("the thread's commits and syncs reach the process's tally (/metrics) when it ends", async () => {
    // One request in flight: each of the 12 is recorded by a commit of its own on the thread's connection.
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 1, requestsInFlight: 1 });
    ws.drop('KORR_TALLY.csv', korr(Array.from({ length: 12 }, (_, i) => `SKU-00001;1;Fund;TT-${i};19.11.2026;;ACME`)));
    const { logger, records } = memoryLogger();
    const runtime = await ws.runtime(logger);
    try {
      expect(runtime.journalTally.commits).toBe(0);
      const file = (await runInboundJob(runtime, runtime.loaded.config.inbound[0]!)).files[0];
      expect(records.filter((r) => r.msg === ON_THREAD)).toHaveLength(1);
      expect(file).toMatchObject({ outcome: 'done', requests: 12 });
      // The main thread's own commits (claim, finish, result name, move) are 4.
      const { commits, commitSeconds, syncs, syncSeconds } = runtime.journalTally;
      expect(commits).toBeGreaterThanOrEqual(12 + 4);
      expect(commitSeconds).toBeGreaterThan(0);
      expect(syncs).toBeGreaterThanOrEqual(5);
      expect(syncSeconds).toBeGreaterThan(0);
    } finally {
      await runtime.close();
    }
  });

  it('acknowledgements from the WMS confirm the exported records from the thread too', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const exportId = await exportAwaitingConfirmation(ws);
    ws.drop('ACK_SO_20261120.csv');
    expect((await runInboundOnce(ws)).files[0].outcome).toBe('done');
    expect(await exportAckStatuses(ws, exportId)).toEqual([[1001, 'acknowledged', true], [1002, 'acknowledged', true], [1003, 'awaiting-confirmation', false]]);
  });

  it('every sample document type gives the same result files as on the main thread, byte for byte', async () => {
    const threads: number[] = [];
    const run = async (threadFrom: number) => {
      await resetEmulator(emu, { seed: 1, scale: 'small' });
      // One file at a time: samples of one family touch the same shipments, and their order must not differ between the runs.
      const ws = workspace({ url: emu.url, token: emu.token, batchSize: 2, inboundJobs: '  - { name: wms-in, drop: wms, service: wis, files_in_flight: 1 }', mappingThreads: { from_bytes: threadFrom } });
      for (const s of INBOUND_SAMPLES) ws.drop(s);
      const { logger, records } = memoryLogger();
      const report = await runInboundOnce(ws, logger);
      threads.push(records.filter((r) => r.msg === ON_THREAD).length);
      // The service's own clock is all that may differ between the two runs.
      const result = (name: string) => readFileSync(join(ws.folder('outbox'), name), 'utf8').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00/g, 'TIME');
      return Object.fromEntries(report.files.map((f) => [f.file, { outcome: f.outcome, result: result(f.resultFile!) }]));
    };
    const onMain = await run(Number.MAX_SAFE_INTEGER);
    const onThread = await run(1);
    expect(Object.keys(onThread).sort()).toEqual([...INBOUND_SAMPLES].sort());
    expect(Object.values(onThread).filter((f) => f.outcome === 'failed')).not.toHaveLength(0); // refused and rejected rows are in it
    expect(onThread).toEqual(onMain);
    // Every file on its own thread but the cycle count (a whole-file document: mapsOnThread).
    expect(threads).toEqual([0, INBOUND_SAMPLES.length - 1]);
  }, 180_000); // two whole runs of every sample, one with a thread per file: a minute alone on two busy cores

  it('a file whose documents outgrow the thread\'s memory goes to error/ with the reason, and the run goes on', async () => {
    const ws = workspace({
      url: emu.url, token: emu.token, mappingThreads: { heap_mb: 24 },
      extraMappings: { 'big-ship': flatShipMapping('BIGSHIP_*.csv', false) },
    });
    // 1,000 lines (the most a shipment may have) for each of the emulator's shipments, unsorted: every document
    // stays open until the end of the file. The thread's modules take ~15 MB of its 24 MB.
    const orders = ((await adminState(emu, ['customer_shipments'])).customer_shipments as Array<{ number: string }>).map((o) => o.number);
    const rows = ['ORDER,SKU,QTY'];
    for (let i = 0; i < orders.length * 1000; i++) rows.push(`${orders[i % orders.length]},SKU-${String(i).padStart(30, '0')},1`);
    ws.drop('BIGSHIP_1.csv', rows.join('\n') + '\n');
    ws.drop('KORR_AFTER.csv', korr(['SKU-00001;1;Fund;AFTER-1;19.11.2026;;ACME']));
    const report = await runInboundOnce(ws);
    const reason = /^GROUPING_LIMIT: BIGSHIP_1\.csv: mapping it outgrew the memory of its thread \(a 24 MB heap; .*\): sort the file by its key/;
    expect(report.files.map((f) => [f.file, f.outcome])).toEqual([['BIGSHIP_1.csv', 'rejected'], ['KORR_AFTER.csv', 'done']]);
    expect(report.files[0].reason).toMatch(reason);
    expect(report.files[0].requests).toBe(0);
    expect(ws.files('error')).toEqual(['BIGSHIP_1.csv', 'BIGSHIP_1.csv.error.txt']);
    expect(ws.read('error', 'BIGSHIP_1.csv.error.txt')).toMatch(new RegExp(`reason: ${reason.source.slice(1)}`));
  });

  it('a thread that cannot start (its heap too small for its own modules) leaves the file to the main thread, with a warning', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, mappingThreads: { heap_mb: 4 } });
    ws.drop('KORR_FALLBACK.csv', korr(['SKU-00001;1;Fund;FB-1;19.11.2026;;ACME', 'SKU-00004;2;Fund;FB-2;19.11.2026;;ACME']));
    const { logger, records } = memoryLogger();
    const file = (await runInboundOnce(ws, logger)).files[0];
    expect(records.filter((r) => r.msg === ON_THREAD)).toHaveLength(0);
    expect(records.find((r) => r.msg === 'the file mapping thread did not start; mapping on the main thread')?.err?.message).toMatch(/memory limit/);
    expect(file).toMatchObject({ outcome: 'done', rows: { ok: 2, error: 0, skipped: 0, uncertain: 0 } });
  });
});

