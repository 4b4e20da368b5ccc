import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { records, useEmulator } from '../support/emulator.js';
import { MAPPING_OF, admin, listOutbox, readRows, setUp, wisbridge, type Setup } from './helpers.js';

// A real crash: the bridge runs as a child process (`node bin/wisbridge.js export ...`) that SIGKILLs itself at
// a chosen point (WISBRIDGE_FAILPOINTS, docs/failpoints.md); the rerun is a fresh process on the same journal and outbox.
const emu = useEmulator({ resetEachTest: true });
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.cleanup();
  setup = undefined;
});

const pendingOf = (family: string) => records(emu, family, (r) => r.warehouse_id === 1 && r.list_status === 'pending');

async function crashAt(point: 'export.after-record' | 'export.after-rename' | 'export.after-written', type: string) {
  const crashed = await wisbridge(['export', type, '--config', setup!.configFile], { WISBRIDGE_FAILPOINTS: `${point}=kill` });
  expect(crashed.signal).toBe('SIGKILL');
  return crashed;
}

async function rerun(type: string) {
  const again = await wisbridge(['export', type, '--config', setup!.configFile, '--json']);
  expect(again.stderr).not.toMatch(/internal error/);
  return { ...again, summary: JSON.parse(again.stdout.trim().split('\n').at(-1)!) };
}

describe('a crash between writing the work list and acknowledging', { timeout: 180_000 }, () => {
  it('killed right after the journal marked the file written: the rerun acknowledges it without exporting again', async () => {
    const pending = await pendingOf('customer_shipments');
    setup = await setUp(emu, [{ name: 'so', work_type: 'customerShipments', mapping: MAPPING_OF.customerShipments }]);
    await crashAt('export.after-written', 'customer-shipments');

    const files = setup.outboxFiles();
    expect(files).toHaveLength(1);
    expect(readRows(join(setup.outbox, files[0])).length).toBeGreaterThanOrEqual(pending.length);
    expect(await pendingOf('customer_shipments')).toHaveLength(pending.length); // nothing acknowledged yet
    const journal = await setup.journal();
    expect(await journal.pendingAcknowledgements('customerShipments')).toHaveLength(pending.length);
    await journal.close();

    const { code, summary } = await rerun('customer-shipments');
    expect(code).toBe(0);
    expect(summary).toMatchObject({ exported: 0, files: [], acknowledgements: { acknowledged: pending.length, errors: 0 } });
    expect(setup.outboxFiles()).toEqual(files);
    expect(listOutbox(setup.outbox)).toContain(`${files[0]}.ack.csv`);
    const after = await records(emu, 'customer_shipments', (r) => pending.some((p) => p.id === r.id));
    expect(after.every((r) => r.list_status === 'open' && r.acknowledged_at !== null)).toBe(true);
    expect(await pendingOf('customer_shipments')).toEqual([]);
  });

  it('killed after the journal recorded the file but before it was written: the rerun frees the records and exports them in a new file', async () => {
    const pending = await pendingOf('customer_return_shipments');
    setup = await setUp(emu, [{ name: 'rma', work_type: 'customerReturns', mapping: MAPPING_OF.customerReturns }]);
    await crashAt('export.after-record', 'customer-returns');
    expect(setup.outboxFiles()).toEqual([]);
    const journal = await setup.journal();
    expect((await journal.unwrittenExports('customerReturns')).map((e) => e.recordCount)).toEqual([pending.length]);
    await journal.close();

    const { code, summary } = await rerun('customer-returns');
    expect(code).toBe(0);
    expect(summary).toMatchObject({ exported: pending.length, recovered: { markedWritten: 0, abandoned: pending.length }, acknowledgements: { acknowledged: pending.length } });
    expect(setup.outboxFiles()).toEqual([expect.stringMatching(/^rma_\d{14}_000002\.csv$/)]);
    expect(await pendingOf('customer_return_shipments')).toEqual([]);
  });

  it('killed after the rename but before the journal knew: the rerun finds the file, marks it written, acknowledges, no second file', async () => {
    const pending = await pendingOf('supplier_shipments');
    setup = await setUp(emu, [{ name: 'asn', work_type: 'supplierShipments', mapping: MAPPING_OF.supplierShipments }]);
    await crashAt('export.after-rename', 'supplier-shipments');
    const journal = await setup.journal();
    expect(await journal.unwrittenExports('supplierShipments')).toHaveLength(1);
    await journal.close();
    const files = setup.outboxFiles();
    expect(files).toHaveLength(1);

    const { code, summary } = await rerun('supplier-shipments');
    expect(code).toBe(0);
    expect(summary).toMatchObject({ exported: 0, recovered: { markedWritten: pending.length, abandoned: 0 }, acknowledgements: { acknowledged: pending.length } });
    expect(setup.outboxFiles()).toEqual(files);
    expect(await pendingOf('supplier_shipments')).toEqual([]);
  });
});

describe('a process paused at a failpoint', { timeout: 180_000 }, () => {
  it('stops after the rename until its pause file is removed, then finishes: marked written and acknowledged', async () => {
    const pending = await pendingOf('supplier_shipments');
    setup = await setUp(emu, [{ name: 'asn', work_type: 'supplierShipments', mapping: MAPPING_OF.supplierShipments }]);
    const pauseFile = join(setup.dir, 'paused');
    const child = wisbridge(['export', 'supplier-shipments', '--config', setup.configFile], { WISBRIDGE_FAILPOINTS: `export.after-rename=pause(${pauseFile})` });
    let exited = false;
    void child.then(() => (exited = true));
    while (!existsSync(pauseFile)) {
      expect(exited).toBe(false);
      await sleep(20);
    }
    expect(Number(readFileSync(pauseFile, 'utf8'))).toBeGreaterThan(0);
    expect(setup.outboxFiles()).toHaveLength(1);
    const journal = await setup.journal();
    expect(await journal.unwrittenExports('supplierShipments')).toHaveLength(1);
    await journal.close();
    expect(exited).toBe(false);

    rmSync(pauseFile);
    const done = await child;
    expect(done.code).toBe(0);
    expect(await pendingOf('supplier_shipments')).toEqual([]);
    expect(pending.length).toBeGreaterThan(0);
  });

  it('an unknown failpoint stops the command at its start with one clear line', async () => {
    setup = await setUp(emu, [{ name: 'asn', work_type: 'supplierShipments', mapping: MAPPING_OF.supplierShipments }]);
    const refused = await wisbridge(['export', 'supplier-shipments', '--config', setup.configFile], { WISBRIDGE_FAILPOINTS: 'export.after-renam=kill' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^wisbridge export: FAILPOINTS: WISBRIDGE_FAILPOINTS: unknown failpoint "export\.after-renam" \(did you mean "export\.after-rename"\?\)/);
    expect(setup.outboxFiles()).toEqual([]);
  });
});

describe('records that change between listing and acknowledging', { timeout: 180_000 }, () => {
  it('a shipment cancelled meanwhile: its acknowledgement error goes to the result file, the others are acknowledged, a cancellation list follows once', async () => {
    const pending = await pendingOf('customer_shipments');
    setup = await setUp(emu, [{ name: 'so', work_type: 'customerShipments', mapping: MAPPING_OF.customerShipments }]);
    await crashAt('export.after-written', 'customer-shipments');
    const [workFile] = setup.outboxFiles();
    const victims = pending.slice(3, 5);
    await admin(emu, 'POST', 'cancel', { ids: victims.map((r) => r.id) });

    const { code, summary } = await rerun('customer-shipments');
    expect(code).toBe(1);
    expect(summary.acknowledgements).toMatchObject({ acknowledged: pending.length - 2, errors: 2, alreadyAcknowledged: 0 });
    expect(summary.cancelled).toBe(2);
    const result = readRows(join(setup.outbox, `${workFile}.ack.csv`));
    const refused = result.filter((r) => r.status === 'error');
    expect(refused.map((r) => r.number).sort()).toEqual(victims.map((r) => r.number).sort());
    expect(refused.every((r) => /cancel/i.test(r.message))).toBe(true);
    expect(result.filter((r) => r.status === 'acknowledged')).toHaveLength(pending.length - 2);

    const cancellationFiles = setup.outboxFiles().filter((f) => f.startsWith('so_cancelled_'));
    expect(cancellationFiles).toHaveLength(1);
    expect(new Set(readRows(join(setup.outbox, cancellationFiles[0])).map((r) => r.ORDER_NO))).toEqual(new Set(victims.map((r) => r.number)));

    const third = await setup.run('so');
    expect(third).toMatchObject({ cancelled: 0, exported: 0, files: [] });
  });

  it('an outbound transfer acknowledged by someone else meanwhile: the fail-fast batch is bisected, the rest acknowledged, that one reported already acknowledged', async () => {
    const pending = await pendingOf('outbound_transfers');
    setup = await setUp(emu, [{ name: 'ot', work_type: 'outboundTransfers', mapping: MAPPING_OF.outboundTransfers }]);
    await crashAt('export.after-written', 'outbound-transfers');
    const [workFile] = setup.outboxFiles();
    const direct = await emu.request('PUT', '/v1/outbound-transfers/acknowledge.json', { shipments: [{ id: pending[2].id }] });
    expect(direct.status).toBe(200);

    const { code, summary } = await rerun('outbound-transfers');
    expect(code).toBe(0);
    expect(summary.acknowledgements).toMatchObject({ acknowledged: pending.length - 1, alreadyAcknowledged: 1, errors: 0 });
    expect(await pendingOf('outbound_transfers')).toEqual([]);
    const result = readRows(join(setup.outbox, `${workFile}.ack.csv`));
    expect(result.find((r) => Number(r.id) === pending[2].id)?.message).toMatch(/already acknowledged/);
  });
});
