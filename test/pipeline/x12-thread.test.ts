import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../service/support.js';
import { resetEmulator, useEmulator } from '../support/emulator.js';
import { runInboundOnce, workspace } from './helpers.js';

// The envelope verdicts the routing pass read cross to the thread that maps a big file (structured-cloned, with the
// mapping's definition): the file maps there as on the main thread.
const emu = useEmulator({ resetEachTest: true });
const ON_THREAD = 'the file is mapped and recorded on its own thread';
const JOB = `  - name: edi
    drop: wms
    service: wis
    x12:
      - { transaction_set: "945", mapping: x12-945-customer-shipment-ship }`;

describe('inbound pipeline: an X12 file mapped on a thread of its own', () => {
  it('gives the same result file and acknowledgement as on the main thread', async () => {
    const run = async (threadFrom: number) => {
      await resetEmulator(emu, { seed: 1, scale: 'small' });
      const ws = workspace({ url: emu.url, token: emu.token, inboundJobs: JOB, mappingThreads: { from_bytes: threadFrom } });
      ws.drop('NWL_945_20261120.edi');
      const { logger, records } = memoryLogger();
      const report = await runInboundOnce(ws, logger);
      const read = (name: string) => readFileSync(join(ws.folder('outbox'), name), 'utf8').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00/g, 'TIME');
      const [file] = report.files;
      // The acknowledgement's envelopes carry the minute they were written: the two runs may straddle one.
      const ack = read(file!.ackFile!).replace(/(ISA\*(?:[^*]*\*){8})\d{6}\*\d{4}/g, '$1DATE*TIME').replace(/(GS\*(?:[^*]*\*){3})\d{8}\*\d{4,8}/g, '$1DATE*TIME');
      return { onThread: records.filter((r) => r.msg === ON_THREAD).length, outcome: file!.outcome, rows: file!.rows, result: read(file!.resultFile!), ack };
    };
    const onMain = await run(Number.MAX_SAFE_INTEGER);
    const onThread = await run(1);
    expect([onMain.onThread, onThread.onThread]).toEqual([0, 1]);
    expect(onThread.rows.ok).toBeGreaterThan(0);
    expect(onThread.rows.error).toBeGreaterThan(0); // the sample's refused sets are in it
    expect({ ...onThread, onThread: 0 }).toEqual(onMain);
  }, 120_000);
});
