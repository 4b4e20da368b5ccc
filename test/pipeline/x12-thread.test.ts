import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../service/support.js';
import { resetEmulator, useEmulator } from '../support/emulator.js';
import { runInboundOnce, SAMPLES, workspace } from './helpers.js';
import { PARTNERS, ROUTED } from './x12-partners.js';

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
  const compare = async (file: string, text: string | undefined, job: string, extraYaml: string | undefined) => {
    const run = async (threadFrom: number) => {
      await resetEmulator(emu, { seed: 1, scale: 'small' });
      const ws = workspace({ url: emu.url, token: emu.token, inboundJobs: job, extraYaml, mappingThreads: { from_bytes: threadFrom } });
      ws.drop(file, text);
      const { logger, records } = memoryLogger();
      const report = await runInboundOnce(ws, logger);
      const read = (name: string) => readFileSync(join(ws.folder('outbox'), name), 'utf8').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00/g, 'TIME');
      const [report0] = report.files;
      // The acknowledgement's envelopes carry the minute they were written: the two runs may straddle one.
      const ack = read(report0!.ackFile!).replace(/(ISA[*|](?:[^*|]*[*|]){8})\d{6}[*|]\d{4}/g, '$1DATE*TIME').replace(/(GS[*|](?:[^*|]*[*|]){3})\d{8}[*|]\d{4,8}/g, '$1DATE*TIME');
      return { onThread: records.filter((r) => r.msg === ON_THREAD).length, outcome: report0!.outcome, rows: report0!.rows, result: read(report0!.resultFile!), ack };
    };
    const onMain = await run(Number.MAX_SAFE_INTEGER);
    const onThread = await run(1);
    expect(onMain.onThread).toBe(0);
    expect(onThread.rows.ok).toBeGreaterThan(0);
    expect(onThread.rows.error).toBeGreaterThan(0); // the samples' refused sets are in it
    expect({ ...onThread, onThread: 0 }).toEqual(onMain);
    return onThread.onThread;
  };

  it('gives the same result file and acknowledgement as on the main thread', async () => {
    expect(await compare('NWL_945_20261120.edi', undefined, JOB, undefined)).toBe(1);
  }, 120_000);

  it('maps a mailbox whose sets go to three mappings on a thread a pass, as on the main thread', async () => {
    const sample = (name: string) => readFileSync(join(SAMPLES, name), 'utf8');
    const mailbox = sample('RTL_945_20261120.edi') + sample('HLX_945_20261120.edi') + sample('RTL_944_20261120.edi');
    expect(await compare('mailbox.edi', mailbox, ROUTED, PARTNERS)).toBe(3);
  }, 120_000);
});
