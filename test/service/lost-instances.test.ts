import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { run as statusCommand } from '../../src/cli/commands/status.js';
import { loadConfig } from '../../src/config/load.js';
import { openJournal } from '../../src/journal/index.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { formatStatus, statusReport } from '../../src/service/status.js';
import { CONSOLE_TOKEN, consoleClient, consoleConfig } from '../console/support.js';
import { useEmulator } from '../support/emulator.js';
import { freshDatabase } from '../support/postgres.js';
import { memoryLogger, tempConfig, useCleanups, waitForEvent } from './support.js';

/**
 * An instance killed without a graceful stop (kill -9, a crash, its VM gone) on a PostgreSQL journal shared with a
 * running bridge: once it has had no heartbeat for longer than a lease it is `lost` in status, on the console and on
 * /metrics, with a critical alert in the inbox; the alert is cleared when it heartbeats again or an operator forgets it.
 * The lease clock is moved forward (leaseClockOffsetMs) instead of waiting a lease out.
 */
const emu = useEmulator();
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

const LEASE_MS = 3000;
const DEAD = { id: 'vm-7852-4242-dead', host: 'vm-7852', pid: 4242, version: 'test' };

describe('a lost instance', () => {
  it('is lost in status, the console and /metrics with a critical alert; the alert clears when it heartbeats again, and when an operator forgets it', async () => {
    const db = await freshDatabase();
    cleanups.push(() => db.drop());
    const yaml = consoleConfig(emu.url).replace('journal: journal.sqlite', `journal: ${JSON.stringify(db.config)}`) + `instance: { lease_ms: ${LEASE_MS}, heartbeat_ms: 500 }\n`;
    const env = await tempConfig(yaml, { load: false });
    cleanups.push(env.cleanup);
    writeFileSync(join(env.dir, 'console-token'), `${CONSOLE_TOKEN}\n`);
    let passed = 0;
    const log = memoryLogger();
    const bridge = new BridgeService(await loadConfig(env.file), { runners: flowRunners, logger: log.logger, leaseClockOffsetMs: () => passed });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    const dead = await openJournal(db.config, { instance: DEAD, leaseMs: LEASE_MS, leaseClockOffsetMs: () => passed });
    cleanups.push(() => dead.close());
    await dead.registerInstance();
    const claimed = await dead.claimFile({ drop: 'wms', name: 'KORR_left.csv', checksum: 'c'.repeat(64), size: 10, mapping: 'inventory-adjustments' });
    const journal = await openJournal(db.config);
    cleanups.push(() => journal.close());
    const stateOf = async () => (await statusReport(journal, { limit: 1, rows: 0, leaseMs: LEASE_MS })).instances.find((i) => i.id === DEAD.id)?.state;
    const lostAlerts = async () => (await journal.console.listAlerts({ limit: 50 })).open.filter((a) => a.kind === 'instance-lost');
    expect(await stateOf()).toBe('live');
    await bridge.lostInstances.look();
    expect(await lostAlerts()).toEqual([]);

    // The dead instance's heartbeat stays where it was while the bridge's goes on, a lease and more later.
    passed = LEASE_MS + 2000;
    await bridge.leases.beat();
    await bridge.lostInstances.look();
    const report = await statusReport(journal, { limit: 1, rows: 0, leaseMs: LEASE_MS });
    expect(report.instances.map((i) => [i.id, i.state]).sort()).toEqual([[bridge.instance.id, 'live'], [DEAD.id, 'lost']].sort());
    const text = formatStatus(report);
    expect(text).toMatch(new RegExp(`${DEAD.id}\\s+lost\\s+vm-7852`));
    expect(text).toContain('1 instance(s) lost');
    const [alert] = await lostAlerts();
    expect(alert).toMatchObject({ subject: `instance:${DEAD.id}`, times: 1, acknowledgedAt: null });
    expect(alert.message).toContain(`instance ${DEAD.id} (vm-7852, pid 4242) is lost`);
    expect(await waitForEvent(log, 'instance.lost')).toMatchObject({ level: 50, instance: DEAD.id, host: 'vm-7852' });
    // Another look does not open a second alert, nor count the same loss again.
    await bridge.lostInstances.look();
    expect((await lostAlerts()).map((a) => a.times)).toEqual([1]);
    const metrics = await (await fetch(`${bridge.url}/metrics`)).text();
    expect(metrics).toContain(`wisbridge_instances{state="lost",instance="${bridge.instance.id}"} 1`);
    expect(metrics).toContain(`wisbridge_instances{state="live",instance="${bridge.instance.id}"} 1`);
    const overview = await consoleClient(bridge.url!).get('/console');
    const row = new RegExp(`<tr data-instance="${DEAD.id}" data-state="([a-z]+)">[\\s\\S]*?</tr>`).exec(overview.text);
    expect(row?.[1]).toBe('lost');
    expect(row?.[0]).toContain('<span class="bad">lost</span>');
    expect(overview.text).toContain(`instance ${DEAD.id} (vm-7852, pid 4242) is lost`);

    // The file it worked on is taken over once its lease ran out: from whom, with the next fencing token; the file's page says so.
    const resumed = await (await bridge.runtime.journal()).claimFile({ drop: 'wms', name: 'KORR_left.csv', checksum: 'c'.repeat(64), size: 10, mapping: 'inventory-adjustments' });
    expect(resumed).toMatchObject({ status: 'resume', fileId: claimed.fileId, from: DEAD.id, token: 2 });
    const filePage = await consoleClient(bridge.url!).get(`/console/files/${claimed.fileId}`);
    expect(filePage.text).toContain(`held by instance ${bridge.instance.id}`);
    expect(filePage.text).toContain('fencing token 2: taken over 1 time(s)');
    expect(filePage.text).toMatch(new RegExp(`<tr data-reason="lost" data-token="2">[\\s\\S]*?<td class="from">${DEAD.id}</td>`));

    // It comes back: live again, its alert cleared by the bridge.
    await dead.heartbeat(LEASE_MS);
    await bridge.lostInstances.look();
    expect(await stateOf()).toBe('live');
    expect(await lostAlerts()).toEqual([]);
    expect(await journal.console.getAlert(alert.id)).toMatchObject({ acknowledgedBy: 'wisbridge (instance live again)' });
    expect(await waitForEvent(log, 'instance.lost-cleared')).toMatchObject({ instance: DEAD.id, why: 'live again' });

    // Lost again, and its host gone for good: an operator forgets it (a live instance is refused), and the alert clears.
    await expect(statusCommand(['--config', env.file, '--forget-instance', bridge.instance.id])).rejects.toMatchObject({ code: 'USAGE' });
    passed += LEASE_MS + 2000;
    await bridge.leases.beat();
    await bridge.lostInstances.look();
    const [again] = await lostAlerts();
    expect(again).toMatchObject({ subject: `instance:${DEAD.id}`, times: 1 });
    expect(again.id).not.toBe(alert.id);
    expect(await statusCommand(['--config', env.file, '--forget-instance', DEAD.id])).toBe(0);
    expect((await journal.listInstances()).map((i) => i.id)).toEqual([bridge.instance.id]);
    await bridge.lostInstances.look();
    expect(await lostAlerts()).toEqual([]);
    expect(await journal.console.getAlert(again.id)).toMatchObject({ acknowledgedBy: 'wisbridge (instance forgotten)' });
  });
});
