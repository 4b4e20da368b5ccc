import { describe, expect, it } from 'vitest';
import { adminState, setFaults, useEmulator } from '../support/emulator.js';
import { killMidFile, restart } from './crash-support.js';
import { workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });

// One item per request and 400 ms of latency: the 30 requests take seconds, so the kill lands mid-file even on a busy machine.
describe('kill -9 in the middle of a file, then restart (endpoints safe to repeat or verifiable)', () => {
  it('picking status (safe to repeat): after the restart every row is ok and applied', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 1 });
    const state = await adminState(emu, ['customer_shipments']);
    const open = state.customer_shipments.filter((s: any) => s.state === 'assigned').slice(0, 30);
    ws.drop('PICK_CRASH.csv', ['Auftrag;Status;Bemerkung', ...open.map((s: any) => `${s.number};Fertig;`), ''].join('\n'));
    await setFaults(emu, { latency_ms: 400, path_prefix: '/v1/customer-shipments/change-status' });
    const done = async () => (await adminState(emu, ['customer_shipments'])).customer_shipments.filter((s: any) => s.picking_status === 'done').length;
    await killMidFile(ws, async () => (await done()) >= 6);
    expect(await done()).toBeLessThan(30);
    const second = await restart(emu, ws);
    expect(second.code).toBe(0);
    expect(ws.result('PICK_CRASH.result.csv').map((r) => r.status)).toEqual(open.map(() => 'ok'));
    expect(await done()).toBe(30);
  });

  it('acknowledgements (verified by reading back): every shipment acknowledged once, every row ok', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 1 });
    const state = await adminState(emu, ['customer_shipments']);
    const pending = state.customer_shipments.filter((s: any) => s.list_status === 'pending').slice(0, 30);
    ws.drop('ACK_SO_CRASH.csv', ['NUMBER', ...pending.map((s: any) => s.number), ''].join('\n'));
    await setFaults(emu, { latency_ms: 400, path_prefix: '/v1/customer-shipments/acknowledge' });
    const acked = async () => (await adminState(emu, ['customer_shipments'])).customer_shipments.filter((s: any) => pending.some((p: any) => p.id === s.id) && s.acknowledged_at).length;
    await killMidFile(ws, async () => (await acked()) >= 6);
    expect(await acked()).toBeLessThan(30);
    const second = await restart(emu, ws);
    expect(second.code, second.stdout).toBe(0);
    expect(ws.result('ACK_SO_CRASH.result.csv').map((r) => r.status)).toEqual(pending.map(() => 'ok'));
    expect(await acked()).toBe(30);
  });
});
