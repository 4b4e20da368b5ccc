import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { tempDir } from '../../src/journal/test-support.js';
import { silentLogger } from '../../src/log.js';
import { InstanceLeases } from '../../src/service/instance.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { adminState, setFaults, useEmulator } from '../support/emulator.js';
import { freshDatabase } from '../support/postgres.js';
import { baseConfig, deferred, memoryLogger, proxiedJournal, tempConfig, until, useCleanups } from './support.js';

/**
 * An instance sends under a lease only while its last heartbeat was sent recently enough for the lease to be sure
 * (src/service/instance.ts): before every attempt of a request, retries included, not once per request.
 */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

// Many attempts: a call retrying 503s goes on for a minute, longer than the lease.
const shipConfig = (journal: string) => `${baseConfig(emu.url, '\n    max_attempts: 20', journal)}inbound:
  - name: ship
    drop: wms
    service: main
    mappings: [customer-shipment-ship]
metrics: { host: 127.0.0.1, port: 0 }
instance: { lease_ms: 3000, heartbeat_ms: 500 }
`;

const shipWrites = async (id: number) => ((await adminState(emu, ['customer_shipments'])).customer_shipments.find((x: any) => x.id === id).writes as any[])
  .filter((w) => w.endpoint === 'customerShipments.ship').length;

describe('a request retrying while its lease passes to another instance', () => {
  it('stops before its next attempt once no heartbeat answered for too long: the other instance ships the shipment once, the journal says ok once', async () => {
    const db = await freshDatabase();
    cleanups.push(() => db.drop());
    const server = inject('postgres');
    const proxied = await proxiedJournal(db, server.port, cleanups);
    const { proxy } = proxied;
    const env = await tempConfig(shipConfig(proxied.journal));
    cleanups.push(env.cleanup, async () => { await setFaults(emu, {}); });
    // One unit of a line of two or more, all together: the service holds the shipment open, so a second ship lands too.
    const s = (await adminState(emu, ['customer_shipments'])).customer_shipments
      .find((x: any) => x.state === 'assigned' && x.lines.length === 1 && !x.lines[0].lot_number && x.lines[0].quantity >= 2);
    const line = s.lines[0];
    await setFaults(emu, { error_rate: 1, error_status: 503, path_prefix: '/v1/customer-shipments/ship' });

    const { logger, records } = memoryLogger();
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, watchRetryMs: 200 });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    writeFileSync(join(env.dir, 'drop', 'inbox', 'SHIP_LEASE.csv'),
      `ORDER_NO,CARRIER,SERVICE,TRACKING,STRATEGY,SKU,QTY,LOT,SERIALS\n${s.number},DHL,DHL_EXPRESS,T1,ship_all_together,${line.product_code},1,,\n`);
    const journal = await openJournal(db.config);
    cleanups.push(() => journal.close());
    const file = await until(() => journal.latestFileNamed('SHIP_LEASE.csv'), 'the file claimed');
    await until(async () => (await journal.fileSummary(file.fileId)).sent === 1, 'its request sent, and refused (503)');

    // The instance's journal goes out of reach while the request is retried: no heartbeat answers any more.
    proxy.cut();
    await until(() => !bridge.leases.fresh, 'the instance holds back');
    // Another instance finds the lease run out (by its clock, moved past it), takes the file over and, once the
    // service answers again, ships the shipment and records it.
    const other = await openJournal(db.config, { instance: { id: 'other-1', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: 3000, leaseClockOffsetMs: 3_600_000 });
    cleanups.push(() => other.close());
    await other.registerInstance();
    expect(await other.claimFile({ drop: file.drop, name: file.name, checksum: file.checksum, size: file.size, mapping: file.mapping }))
      .toMatchObject({ status: 'resume', fileId: file.fileId });
    const [sent] = (await other.resumeState(file.fileId)).sentRequests;
    const [item] = await other.requestItems(sent.requestId);
    await setFaults(emu, {});
    expect((await emu.request('PUT', '/v1/customer-shipments/ship.json', { shipments: [JSON.parse(item.body!)] })).status).toBe(200);
    await other.completeRequest(sent.requestId, [{ seq: item.seq, status: 'ok', result: { id: s.id, verified: 'shipped by the other instance' } }]);

    // The first instance's next attempt: refused before it goes out, or (were its attempts not checked) answered.
    const refused = () => records.find((r) => r.msg.startsWith('a request of the file is not sent (again)'));
    await until(async () => refused() ?? (await shipWrites(s.id)) > 1, 'the first instance\'s next attempt');
    expect(await shipWrites(s.id)).toBe(1);
    expect(refused()).toMatchObject({ level: 40, fileId: file.fileId });
    const after = (await adminState(emu, ['customer_shipments'])).customer_shipments.find((x: any) => x.id === s.id);
    expect(after.lines[0].done_quantity).toBe(1);

    // The journal answers again: the first instance wrote nothing for the file, which the other one holds.
    proxy.restore();
    await until(() => bridge.leases.fresh, 'the first instance\'s heartbeat answered again');
    expect(await journal.getRequest(sent.requestId)).toMatchObject({ status: 'done' });
    expect(await journal.fileSummary(file.fileId)).toMatchObject({ ok: 1, sent: 0, uncertain: 0 });
  });
});

describe('what makes an instance fresh', () => {
  it('a heartbeat counts from when it was sent, not from its late answer; a retired instance sends nothing more', async () => {
    const tmp = tempDir();
    cleanups.push(() => tmp.remove());
    const journal = await openJournal(tmp.path, { instance: { id: 'here-1', host: 'here', pid: 1, version: 'test' }, leaseMs: 60_000 });
    cleanups.push(() => journal.close());
    // The journal renews the lease at once; its answer reaches the instance only when the test lets it.
    const answer = deferred();
    let late = false;
    const slow = {
      instance: journal.instance, registerInstance: () => journal.registerInstance(), retireInstance: () => journal.retireInstance(),
      heartbeat: async (leaseMs: number) => {
        const renewed = await journal.heartbeat(leaseMs);
        if (late) await answer.promise;
        return renewed;
      },
    };
    const leases = new InstanceLeases(async () => slow, { leaseMs: 400, heartbeatMs: 200 }, silentLogger, new AbortController().signal);
    cleanups.push(() => leases.retire());
    await leases.start();
    late = true;
    const beating = leases.beat();
    await until(() => !leases.fresh, 'the heartbeat sent longer ago than lease_ms - heartbeat_ms');
    answer.resolve();
    await beating;
    expect(leases.fresh).toBe(false);
    const held = leases.hold(1);
    expect(() => held.check()).toThrow(/no heartbeat answered since one sent \d+ ms ago/);

    late = false;
    await leases.beat();
    expect(leases.fresh).toBe(true);
    await leases.retire();
    expect(leases.fresh).toBe(false);
    await expect(held.ready()).rejects.toMatchObject({ code: 'LEASE_LOST', message: expect.stringMatching(/this instance is stopping/) });
  });
});

describe('a stop whose run outlives the shutdown bound', () => {
  it('does not retire the instance (a run of it is undecided): its leases run out by themselves, and it sends nothing more', async () => {
    const env = await tempConfig(`${baseConfig(emu.url)}
exports:
  - name: slow
    work_type: customerShipments
    drop: wms
    service: main
    mapping: customer-shipments-export
shutdown_timeout_ms: 200
`);
    cleanups.push(env.cleanup);
    // A run that ends neither when asked nor when its requests are aborted.
    const busy = deferred();
    const none = async () => ({ files: [], exports: [] });
    const { logger, records } = memoryLogger();
    const bridge = new BridgeService(env.loaded, {
      runners: { inboundPass: none, inboundFile: none, exportRun: async () => { await busy.promise; return { files: [], exports: [] }; } }, logger, httpServer: false,
    });
    await bridge.start();
    const running = bridge.runNow('slow');
    await bridge.stop('test');
    expect(records.some((r) => r.msg.startsWith('shutdown: runs still busy after the requests in flight were aborted; the instance is not retired'))).toBe(true);
    expect(bridge.leases.fresh).toBe(false);
    busy.resolve();
    await running;
    const journal = await openJournal(env.loaded.journal);
    cleanups.push(() => journal.close());
    expect((await journal.listInstances()).map((i) => [i.id, i.stoppedAt])).toEqual([[bridge.instance.id, null]]);
  });
});
