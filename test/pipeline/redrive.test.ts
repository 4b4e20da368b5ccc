import { describe, expect, it } from 'vitest';
import { redriveFile } from '../../src/pipeline/index.js';
import { setFaults, useEmulator } from '../support/emulator.js';
import { exportAckStatuses, exportAwaitingConfirmation, runInboundOnce, workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });

describe('wisbridge retry goes through the same sender as the first send', () => {
  it('a re-driven WMS acknowledgement file marks the exported records it acknowledges confirmed', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const exportId = await exportAwaitingConfirmation(ws);
    const ackStatus = () => exportAckStatuses(ws, exportId);

    // The service refuses every acknowledgement the first time (a 422 changes nothing): the rows fail.
    await setFaults(emu, { error_rate: 1, error_status: 422, path_prefix: '/v1/customer-shipments/acknowledge' });
    ws.drop('ACK_SO_20261120.csv');
    const first = (await runInboundOnce(ws)).files[0];
    expect(first).toMatchObject({ outcome: 'failed', rows: { ok: 0, error: 2 } });
    expect(await ackStatus()).toEqual([[1001, 'awaiting-confirmation', false], [1002, 'awaiting-confirmation', false], [1003, 'awaiting-confirmation', false]]);

    await setFaults(emu, {});
    const runtime = await ws.runtime();
    try {
      expect(await redriveFile(runtime, 'ACK_SO_20261120.csv')).toMatchObject({ sent: 2, ok: 2, error: 0, status: 'done' });
    } finally {
      await runtime.close();
    }
    expect(await ackStatus()).toEqual([[1001, 'acknowledged', true], [1002, 'acknowledged', true], [1003, 'awaiting-confirmation', false]]);
    expect(ws.result('ACK_SO_20261120.result.csv').map((r) => [r.document, r.status, r.id])).toEqual([['SO-1001', 'ok', '1001'], ['SO-1002', 'ok', '1002']]);
  });
});
