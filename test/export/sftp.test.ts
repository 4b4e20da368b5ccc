import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { records, useEmulator } from '../support/emulator.js';
import { MAPPING_OF, admin, listOutbox, readRows, setUp, wisbridge, type Setup } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
let server: SftpServer;
let setup: Setup | undefined;
beforeAll(async () => { server = await startSftpServer(); });
afterAll(async () => { await server?.stop(); });
afterEach(async () => {
  await setup?.cleanup();
  setup = undefined;
});

describe('exports to a real OpenSSH SFTP server', { timeout: 180_000 }, () => {
  it('customer returns: work list and result file land in the remote outbox; a cancellation list follows a cancelled return', async () => {
    const pending = await records(emu, 'customer_return_shipments', (r) => r.warehouse_id === 1 && r.list_status === 'pending');
    setup = await setUp(emu, [{ name: 'rma', work_type: 'customerReturns', mapping: MAPPING_OF.customerReturns, file_name: 'RMA_WORK_{timestamp}_{seq}.csv' }], { sftp: server });
    const first = await setup.run('rma');
    expect(first).toMatchObject({ exported: pending.length, exitCode: 0, acknowledgements: { acknowledged: pending.length } });
    const [work] = setup.outboxFiles();
    expect(listOutbox(setup.outbox)).toEqual([work, `${work}.ack.csv`]);
    expect(new Set(readRows(join(setup.outbox, work), { delimiter: ';' }).map((r) => r.RMA))).toEqual(new Set(pending.map((r) => r.number)));

    await admin(emu, 'POST', 'cancel', { ids: [pending[1].id] });
    const second = await setup.run('rma');
    expect(second).toMatchObject({ exported: 0, cancelled: 1 });
    const cancelFile = second.files.find((f) => f.kind === 'cancellation')!;
    expect(new Set(readRows(join(setup.outbox, cancelFile.name), { delimiter: ';' }).map((r) => r.RMA))).toEqual(new Set([pending[1].number]));
  });

  it('a file recorded but never written (no outbox folder yet on the server) is reconciled as abandoned and exported again', async () => {
    const pending = await records(emu, 'supplier_shipments', (r) => r.warehouse_id === 1 && r.list_status === 'pending');
    setup = await setUp(emu, [{ name: 'asn', work_type: 'supplierShipments', mapping: MAPPING_OF.supplierShipments }], { sftp: server });
    const journal = await setup.runtime.journal();
    await journal.beginExport({ workType: 'supplierShipments', fileName: 'asn_lost.csv', records: pending.map((r) => ({ id: r.id, number: r.number })) });
    const run = await setup.run('asn');
    expect(run).toMatchObject({ recovered: { abandoned: pending.length, markedWritten: 0 }, exported: pending.length, exitCode: 0 });
    expect(setup.outboxFiles()).toEqual([run.files[0].name]);
  });

  it('the command line over SFTP: a crash after writing, then the rerun acknowledges without a second work list', async () => {
    const pending = await records(emu, 'inbound_transfers', (r) => r.warehouse_id === 1 && r.list_status === 'pending');
    setup = await setUp(emu, [{ name: 'it', work_type: 'inboundTransfers', mapping: MAPPING_OF.inboundTransfers }], { sftp: server });
    const crashed = await wisbridge(['export', 'inbound-transfers', '--config', setup.configFile], { WISBRIDGE_FAILPOINTS: 'export.after-written=kill' });
    expect(crashed.signal).toBe('SIGKILL');
    const files = setup.outboxFiles();
    expect(files).toHaveLength(1);
    const again = await wisbridge(['export', '--job', 'it', '--config', setup.configFile]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`it \\(inboundTransfers\\): 0 exported .*\\n  acknowledged ${pending.length},`));
    expect(setup.outboxFiles()).toEqual(files);
    expect(await records(emu, 'inbound_transfers', (r) => r.warehouse_id === 1 && r.list_status === 'pending')).toEqual([]);
  });
});

describe('command line mistakes', () => {
  it('give one clear typed line and exit 2, never a stack trace', async () => {
    setup = await setUp(emu, [{ name: 'so', work_type: 'customerShipments', mapping: MAPPING_OF.customerShipments }]);
    const unknownType = await wisbridge(['export', 'pallets', '--config', setup.configFile]);
    expect(unknownType.code).toBe(2);
    expect(unknownType.stderr).toMatch(/^wisbridge export: USAGE: unknown work type "pallets"\n/);
    const near = await wisbridge(['export', 'customer-shipment', '--config', setup.configFile]);
    expect(near.code).toBe(2);
    expect(near.stderr).toMatch(/^wisbridge export: USAGE: unknown work type "customer-shipment"; did you mean customer-shipments\?\n/);
    const noJob = await wisbridge(['export', 'products', '--config', setup.configFile]);
    expect(noJob.code).toBe(2);
    expect(noJob.stderr).toMatch(/USAGE: no export job matches type products .*configured: so \(customerShipments\)/);
    expect(`${unknownType.stderr}${noJob.stderr}`).not.toMatch(/\n\s+at /);
  });

  it('an unreachable service is fatal: exit 2 with a typed line, nothing written, nothing journaled as handed over', async () => {
    setup = await setUp({ url: 'http://127.0.0.1:9', token: emu.token }, [{ name: 'so', work_type: 'customerShipments', mapping: MAPPING_OF.customerShipments }]);
    const down = await wisbridge(['export', 'customer-shipments', '--config', setup.configFile]);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/job so: UNAVAILABLE: /);
    expect(down.stderr).not.toMatch(/\n\s+at /);
    expect(setup.outboxFiles()).toEqual([]);
  });

  it('a mapping of the wrong document is a configuration error; the service token never appears in output', async () => {
    setup = await setUp(emu, [{ name: 'so', work_type: 'customerShipments', mapping: MAPPING_OF.products }]);
    const wrong = await wisbridge(['export', 'customer-shipments', '--config', setup.configFile]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/CONFIG_INVALID: export job "so": mapping "products-export" is products.list, not customerShipments.list/);
    expect(`${wrong.stdout}${wrong.stderr}`).not.toContain(emu.token);
  });
});
