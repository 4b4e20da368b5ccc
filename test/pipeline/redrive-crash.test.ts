import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { adminState, setFaults, useEmulator } from '../support/emulator.js';
import { cli, finished, runInboundOnce, workspace } from './helpers.js';
import { loadConfig } from '../../src/config/load.js';
import { BridgeService } from '../../src/service/service.js';
import { flowRunners } from '../../src/service/runners.js';
import { memoryLogger, until, waitForEvent } from '../service/support.js';

const emu = useEmulator({ resetEachTest: true });

/**
 * A ship row that failed, re-driven by `retry`, which is killed once the service shipped it and before the outcome
 * was stored: the file is left processing with that request sent.
 */
async function redriveCrashed() {
  const ws = workspace({ url: emu.url, token: emu.token });
  const s = (await adminState(emu, ['customer_shipments'])).customer_shipments
    .find((x: any) => x.state === 'assigned' && x.lines.length === 1 && !x.lines[0].lot_number);
  const line = s.lines[0];
  ws.drop('SHIP_RD.csv', `ORDER_NO,CARRIER,SERVICE,TRACKING,STRATEGY,SKU,QTY,LOT,SERIALS\n${s.number},DHL,DHL_EXPRESS,T1,,${line.product_code},${line.quantity},,\n`);
  // The service refuses the ship the first time (a 422 changes nothing): the row fails, the file is archived.
  await setFaults(emu, { error_rate: 1, error_status: 422, path_prefix: '/v1/customer-shipments/ship' });
  expect((await runInboundOnce(ws)).files[0]).toMatchObject({ outcome: 'failed', rows: { error: 1 } });
  expect(ws.files('archive')).toEqual(['SHIP_RD.csv']);
  await setFaults(emu, {});

  // The re-drive's request reaches the service and is applied; the process dies before its outcome is stored.
  const killed = await finished(cli(['retry', '--config', ws.configFile, '--file', 'SHIP_RD.csv'], { WISBRIDGE_FAILPOINTS: 'send.after-answer=kill' }));
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  const writes = async () => (await adminState(emu, ['customer_shipments'])).customer_shipments.find((x: any) => x.id === s.id).writes
    .filter((w: any) => w.endpoint === 'customerShipments.ship');
  expect(await writes()).toHaveLength(1);
  const left = await openJournal(join(ws.dir, 'journal.sqlite'));
  const fileId = (await left.latestFileNamed('SHIP_RD.csv'))!.fileId;
  expect(await left.getFile(fileId)).toMatchObject({ status: 'processing', redrives: 1, disposedTo: 'archive/SHIP_RD.csv' });
  expect(await left.backlog()).toMatchObject({ processingFiles: 1, sentRequests: 1 });
  await left.close();
  return { ws, s, fileId, writes };
}

describe('a re-drive is a leased run of the file: one a crash stopped is taken up like a first pass', () => {
  it('retry killed after the service shipped a re-sent row: the next retry reconciles it (shipped once), finishes the file and rewrites its result file', async () => {
    const { ws, s, fileId, writes } = await redriveCrashed();

    const again = await finished(cli(['retry', '--config', ws.configFile, '--file', 'SHIP_RD.csv']));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/re-drive 1, 0 row\(s\) sent again.*\nfile is now done; result file rewritten: outbox\/SHIP_RD\.result\.csv/);
    expect(await writes()).toHaveLength(1);
    expect((await adminState(emu, ['customer_shipments'])).customer_shipments.find((x: any) => x.id === s.id).state).toBe('shipped');
    expect(ws.result('SHIP_RD.result.csv')).toEqual([expect.objectContaining({ document: s.number, status: 'ok' })]);
    const after = await openJournal(join(ws.dir, 'journal.sqlite'));
    expect(await after.getFile(fileId)).toMatchObject({ status: 'done', redrives: 1, disposedTo: 'archive/SHIP_RD.csv' });
    expect(await after.backlog()).toMatchObject({ processingFiles: 0, sentRequests: 0 });
    await after.close();
  });

  it('a `wisbridge run` started after the crash takes the unfinished re-drive up by itself: shipped once, the file done', async () => {
    const { ws, s, fileId, writes } = await redriveCrashed();
    const log = memoryLogger();
    const bridge = new BridgeService(await loadConfig(ws.configFile), { runners: flowRunners, logger: log.logger, httpServer: false });
    try {
      await bridge.start();
      expect(await waitForEvent(log, 'redrive.takeup')).toMatchObject({ file: 'SHIP_RD.csv', fileId });
      await waitForEvent(log, 'redrive.resumed');
      await until(async () => (await (await bridge.runtime.journal()).getFile(fileId)).status === 'done', 'the re-drive to finish');
    } finally {
      await bridge.stop('test');
    }
    expect(await writes()).toHaveLength(1);
    expect((await adminState(emu, ['customer_shipments'])).customer_shipments.find((x: any) => x.id === s.id).state).toBe('shipped');
    expect(ws.result('SHIP_RD.result.csv')).toEqual([expect.objectContaining({ document: s.number, status: 'ok' })]);
  });
});
