import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { appliedReferences, setFaults, useEmulator } from '../support/emulator.js';
import { freshDatabase } from '../support/postgres.js';
import { eventsOf, korrFile, memoryLogger, tempConfig, until, useCleanups, type LogRecord } from './support.js';

/**
 * A graceful stop hands an instance's unfinished files to the others at their next look at the inbox (docs/operations.md,
 * "Running several instances"): counted in looks of the inbox, not in time. The leases are the default 30 s, so a
 * handover that waited for a lease (the files found busy, offered again a lease later) would not come within the test.
 */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
const root = resolve(import.meta.dirname, '../..');
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

const FILES = 10;
const ROWS = 30;

const config = (journal: string) => `
journal: ${journal}
mappings: ${JSON.stringify(join(root, 'mappings'))}
services:
  main:
    url: ${emu.url}
    token: { env: WISBRIDGE_TEST_TOKEN }
    batch_size: 2
    requests_in_flight: 1
drops:
  wms:
    type: local
    root: drop
    settle_ms: 0
    watch_events: false
    poll_interval_ms: 1000
inbound:
  - name: stock
    drop: wms
    service: main
    mappings: [inventory-adjustments]
    files_in_flight: ${FILES}
instance: { lease_ms: 30000, heartbeat_ms: 10000 }
`;

/** How many of `records` are looks at the inbox (the watcher's listings) logged before `record`. */
const looksBefore = (records: LogRecord[], record: LogRecord) => eventsOf(records.slice(0, records.indexOf(record)), 'inbox.listed').length;

describe('handover after a graceful stop', () => {
  it(`SIGTERM to A with ${FILES} files in progress: B takes every file A gave up within two of its looks at the inbox, and every row goes once`, async () => {
    const db = await freshDatabase();
    cleanups.push(() => db.drop());
    const env = await tempConfig(config(JSON.stringify(db.config)));
    cleanups.push(env.cleanup, async () => { await setFaults(emu, {}); });
    const [inbox, archive] = ['inbox', 'archive'].map((folder) => join(env.dir, 'drop', folder)) as [string, string];
    const a = memoryLogger();
    const b = memoryLogger();
    const bridgeA = new BridgeService(env.loaded, { runners: flowRunners, logger: a.logger, httpServer: false, watchRetryMs: 200 });
    const bridgeB = new BridgeService(env.loaded, { runners: flowRunners, logger: b.logger, httpServer: false, watchRetryMs: 200 });
    cleanups.push(() => bridgeA.stop('test'), () => bridgeB.stop('test'));

    // Slow writes, one at a time per file: A's files stay in progress while B starts and meets them.
    await setFaults(emu, { latency_ms: 300, path_prefix: '/v1/inventory/adjustments' });
    const names = Array.from({ length: FILES }, (_, f) => `KORR_hand_${String(f + 1).padStart(2, '0')}.csv`);
    names.forEach((name, f) => writeFileSync(join(inbox, name), korrFile(Array.from({ length: ROWS }, (_, r) => ['SKU-00001', 1, `HAND-${f + 1}-${r + 1}`] as [string, number, string]))));
    await bridgeA.start();
    await until(() => new Set(eventsOf(a.records, 'file.claimed').map((r) => r.file)).size === FILES, 'A claimed every file');
    await bridgeB.start();
    await until(() => new Set(eventsOf(b.records, 'file.busy').map((r) => r.file)).size === FILES, 'B found every file busy');

    await bridgeA.stop('SIGTERM');
    const looksAtStop = eventsOf(b.records, 'inbox.listed').length;
    const given = names.filter((n) => existsSync(join(inbox, n)) && !existsSync(join(archive, n)));
    expect(given.length).toBeGreaterThan(1);

    const queued = await until(() => {
      const found = given.map((name) => eventsOf(b.records, 'file.takeover-queued').find((r) => r.file === name));
      return found.every((r) => r !== undefined) ? (found as LogRecord[]) : undefined;
    }, 'B queued every file A gave up');
    for (const record of queued) {
      expect(record.owner).toBe(bridgeA.instance.id);
      expect(looksBefore(b.records, record), record.file as string).toBeLessThanOrEqual(looksAtStop + 2);
    }
    await until(() => names.every((n) => existsSync(join(archive, n))), 'every file archived');
    const resumedRecords = eventsOf(b.records, 'file.claimed').filter((r) => r.claim === 'resume');
    const resumed = resumedRecords.map((r) => r.file as string);
    expect(resumed.sort()).toEqual([...given].sort());
    // Each file's history: A claimed it, B took it over from A at its stop (a handover), with the next fencing token.
    const journal = await bridgeB.runtime.journal();
    for (const record of resumedRecords) {
      expect(record).toMatchObject({ from: bridgeA.instance.id, reason: 'handover', leaseToken: 2 });
      expect((await journal.console.fileOwners(record.fileId as number)).map(({ at: _, ...o }) => o)).toEqual([
        { instance: bridgeA.instance.id, from: null, token: 1, reason: 'claim' },
        { instance: bridgeB.instance.id, from: bridgeA.instance.id, token: 2, reason: 'handover' },
      ]);
    }
    await setFaults(emu, {});
    const applied = await appliedReferences(emu, 'HAND-');
    expect(applied.size).toBe(FILES * ROWS);
    expect([...applied.values()].every((n) => n === 1)).toBe(true);
  });
});
