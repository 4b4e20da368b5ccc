import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { x12Interchanges } from '../../src/export/index.js';
import { ManualClock } from '../../src/service/clock.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { segmentsOf, writeInterchange } from '../../src/x12/index.js';
import { useEmulator } from '../support/emulator.js';
import { cli, finished } from '../pipeline/helpers.js';
import { CONSOLE_TOKEN, consoleClient } from '../console/support.js';
import { loadConfig } from '../../src/config/load.js';
import { baseConfig, memoryLogger, tempConfig, until, useCleanups } from './support.js';

// The alert when a partner's 997 is overdue (ack_expected_within, docs/x12.md "Acknowledgements received"): raised by
// a running instance's shared tick on its clock, once, and cleared when the 997 arrives.
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

const config = (url: string) => `${baseConfig(url)}partners:
  NWL:
    them: { qualifier: ZZ, id: NWLWMS }
    us: { qualifier: ZZ, id: WISBRIDGE }
    ack_expected_within: 1h
exports:
  - { name: so, drop: wms, service: main, work_type: customerShipments, mapping: customer-shipments-export, format: x12, partner: NWL, file_name: "{job}_{seq}.x12", cancellations: false }
inbound:
  - name: edi
    drop: wms
    service: main
    x12:
      - { transaction_set: "945", mapping: x12-945-customer-shipment-ship, partner: NWL }
metrics: { host: 127.0.0.1, port: 0 }
console:
  auth: { bearer_token: { file: console-token } }
`;

const MINUTE = 60_000;

describe('an overdue partner acknowledgement', { timeout: 180_000 }, () => {
  it('is alerted once by the tick after ack_expected_within, and cleared when the 997 arrives', async () => {
    const env = await tempConfig(config(emu.url), { load: false });
    cleanups.push(env.cleanup);
    writeFileSync(join(env.dir, 'console-token'), CONSOLE_TOKEN + '\n');
    const loaded = await loadConfig(env.file);
    const exported = await finished(cli(['export', '--job', 'so', '--config', env.file]));
    expect(exported.code, exported.stderr).toBe(0);
    const written = segmentsOf(readFileSync(join(env.dir, 'drop', 'outbox', 'so_000001.x12')));
    const gs06 = written.find((s) => s.id === 'GS')!.element(6);

    const start = Date.now();
    const clock = new ManualClock(start);
    const { logger, records } = memoryLogger();
    const bridge = new BridgeService(loaded, { runners: flowRunners, logger, clock });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    const journal = await bridge.runtime.journal();
    const overdueAlerts = async () => (await journal.console.listAlerts({ limit: 50 })).open.filter((a) => a.kind === 'x12-ack-overdue');

    await clock.advanceTo(start + 40 * MINUTE);
    const stateAt = async (now: number) => (await x12Interchanges(journal, loaded.config.partners, now, { limit: 5 })).map((x) => x.state);
    expect(await stateAt(clock.now())).toEqual(['awaiting']);
    expect(await overdueAlerts()).toEqual([]);

    await clock.advanceTo(start + 75 * MINUTE);
    const [alert] = await until(async () => ((await overdueAlerts()).length ? overdueAlerts() : undefined), 'the overdue alert');
    expect(alert).toMatchObject({ subject: 'export:1', severity: 'warning', times: 1 });
    expect(await stateAt(clock.now())).toEqual(['overdue']);
    // The console's exports page shows each X12 interchange's acknowledgement state, by the real clock: awaiting, the write was seconds ago.
    const exportsPage = await consoleClient(bridge.url!).get('/console/exports');
    expect(exportsPage.text).toMatch(/<th>X12 acknowledgement<\/th>/);
    expect(exportsPage.text).toMatch(/<td class="x12-ack">awaiting \(due by \d{4}-\d\d-\d\d \d\d:\d\d\)<\/td>/);
    expect(alert.message).toMatch(new RegExp(`^no 997/999 from NWL for export 1 \\(so_000001\\.x12\\), interchange 000000001, group ${gs06}: written \\S+, due by \\S+ \\(ack_expected_within of partner NWL\\)$`));
    expect(records.filter((r) => r.event === 'x12.ack-overdue')).toHaveLength(1);
    // Later looks find it alerted already.
    await clock.advanceTo(start + 95 * MINUTE);
    expect((await overdueAlerts()).map((a) => a.times)).toEqual([1]);

    const at = new Date(start);
    writeFileSync(join(env.dir, 'drop', 'inbox', 'NWL_997.edi'), writeInterchange({ element: '*', component: '>', segment: '~' },
      { senderQualifier: 'ZZ', sender: 'NWLWMS', receiverQualifier: 'ZZ', receiver: 'WISBRIDGE', at, control: 9 },
      [{ header: { functionalId: 'FA', sender: 'NWLWMS', receiver: 'WISBRIDGE', at, control: 9, version: '004010' }, sets: [{ id: '997', control: 1, segments: [['AK1', 'OW', gs06], ['AK9', 'A', '1', '1', '1']] }] }]));
    await until(async () => {
      await clock.advanceTo(clock.now() + 1000);
      return (await overdueAlerts()).length === 0;
    }, 'the overdue alert cleared by the 997');
    const cleared = (await journal.console.listAlerts({ limit: 50 })).acknowledged.find((a) => a.kind === 'x12-ack-overdue');
    expect(cleared).toMatchObject({ subject: 'export:1', acknowledgedBy: 'wisbridge (the acknowledgement arrived)' });
    expect(await journal.exportAck(1)).toMatchObject({ state: 'accepted', code: 'A' });
    expect(await stateAt(clock.now())).toEqual(['accepted']);
    expect((await consoleClient(bridge.url!).get('/console/exports')).text).toMatch(/<td class="x12-ack">accepted: AK9 A: accepted, 1 of 1 sets accepted<\/td>/);
  });
});
