import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { appliedReferences, multiLineRecord, probeWrite, recordById, setFaults, useEmulator } from '../support/emulator.js';
import { eventsOf, korrFile, memoryLogger, tempConfig, until, useCleanups } from './support.js';

/**
 * Several files of a job at once (`files_in_flight`), within the order rules (ordered mappings, acknowledgements
 * first), and one cap on the requests to a service across files and jobs (`max_requests_in_flight`), counted by the
 * emulator as it answers (GET /_admin/concurrency).
 */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
const root = resolve(import.meta.dirname, '../..');
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

interface Setup {
  watch: boolean;
  filesInFlight: number;
  mappings?: string;
  jobMappings?: string;
  service?: string;
  /** A second job on a drop of its own (`wms2`), like the first. */
  secondJob?: boolean;
}

const config = (s: Setup) => `
journal: journal.sqlite
mappings: ${JSON.stringify(s.mappings ?? join(root, 'mappings'))}
services:
  main:
    url: ${emu.url}
    token: { env: WISBRIDGE_TEST_TOKEN }
    batch_size: 1
${s.service ?? '    requests_in_flight: 1'}
drops:
${['wms', 'wms2'].map((d) => `  ${d}:
    type: local
    root: ${d === 'wms' ? 'drop' : 'drop2'}
    settle_ms: 0
    watch_events: false
    poll_interval_ms: 50
`).join('')}inbound:
${(s.secondJob ? ['stock', 'stock2'] : ['stock']).map((name, i) => `  - name: ${name}
    drop: ${i === 0 ? 'wms' : 'wms2'}
    service: main
    watch: ${s.watch}
    files_in_flight: ${s.filesInFlight}
${s.jobMappings ?? '    mappings: [inventory-adjustments]'}
`).join('')}`;

async function concurrency(reset = false): Promise<{ in_flight: number; peak: number; requests: number; request_ms: number; span_ms: number }> {
  const res = await fetch(`${emu.url}/_admin/concurrency${reset ? '?reset=1' : ''}`);
  return (await res.json()) as { in_flight: number; peak: number; requests: number; request_ms: number; span_ms: number };
}

async function bridgeFor(s: Setup) {
  const env = await tempConfig(config(s));
  for (const f of ['inbox', 'outbox', 'archive', 'error']) mkdirSync(join(env.dir, 'drop2', f), { recursive: true });
  cleanups.push(env.cleanup, async () => { await setFaults(emu, {}); });
  const { logger, records } = memoryLogger();
  const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, watchRetryMs: 200, httpServer: false });
  cleanups.push(() => bridge.stop('test'));
  const folder = (name: string, drop = 'drop') => join(env.dir, drop, name);
  return { env, bridge, records, folder };
}

/** Drops `count` KORR files of `rows` rows each; references `PREFIX-file-row`. */
function dropKorr(inbox: string, prefix: string, count: number, rows: number): string[] {
  const names: string[] = [];
  for (let f = 1; f <= count; f++) {
    const name = `KORR_${prefix}_${String(f).padStart(2, '0')}.csv`;
    writeFileSync(join(inbox, name), korrFile(Array.from({ length: rows }, (_, r) => ['SKU-00001', 1, `${prefix}-${f}-${r + 1}`] as [string, number, string])));
    names.push(name);
  }
  return names;
}

/**
 * Until the watched runs of `count` files are over: a run logs `job.run.finished` once its file's bookkeeping (live
 * view, metrics) is done, which comes after the file's result file, its archiving and its 'file processed' line.
 */
async function watchedRunsOver(records: ReturnType<typeof memoryLogger>['records'], count: number): Promise<void> {
  const files = () => eventsOf(records, 'job.run.finished').filter((r) => r.trigger === 'watch').reduce((n, r) => n + Number(r.files ?? 0), 0);
  await until(() => files() >= count, `${count} watched runs over`);
}

/** The most files of a job in the live view at once, sampled until `done` resolves. */
async function mostInProgress(bridge: BridgeService, job: string, done: Promise<unknown>): Promise<number> {
  let most = 0;
  let over = false;
  void done.finally(() => { over = true; });
  while (!over) {
    most = Math.max(most, bridge.progress.snapshot().filter((p) => p.job === job).length);
    await new Promise((r) => setTimeout(r, 10));
  }
  return most;
}

describe('several files of a job at once (files_in_flight)', () => {
  for (const watch of [false, true]) {
    it(`${watch ? 'watched' : 'a scheduled pass'}: up to files_in_flight files at once (counted by the emulator), each file once, a result file each, several in the live view`, async () => {
      const { bridge, records, folder } = await bridgeFor({ watch, filesInFlight: 3 });
      await setFaults(emu, { latency_ms: 60, path_prefix: '/v1/inventory/adjustments' });
      const names = dropKorr(folder('inbox'), 'MANY', 9, 4);
      await concurrency(true);
      await bridge.start();
      const done = watch ? watchedRunsOver(records, names.length) : bridge.runNow('stock');
      const most = await mostInProgress(bridge, 'stock', done);
      expect(await done).not.toBe('skipped');
      const seen = await concurrency();
      // One request at a time per file (requests_in_flight 1): more than one at once means several files at once.
      expect(seen.peak).toBeGreaterThan(1);
      expect(seen.peak).toBeLessThanOrEqual(3);
      // Every adjustment (one row a request) reached the service, and was applied once (below).
      expect(seen.requests).toBeGreaterThanOrEqual(9 * 4);
      expect(most).toBeGreaterThan(1);
      expect(most).toBeLessThanOrEqual(3);
      expect(readdirSync(folder('outbox')).sort()).toEqual(names.map((n) => n.replace('.csv', '.result.csv')).sort());
      expect(readdirSync(folder('archive')).filter((n) => n.startsWith('KORR_')).length).toBe(names.length);
      expect(readdirSync(folder('inbox'))).toEqual([]);
      const applied = await appliedReferences(emu, 'MANY-');
      expect(applied.size).toBe(9 * 4);
      expect([...applied.values()].every((n) => n === 1)).toBe(true);
      expect(bridge.progress.snapshot()).toEqual([]);
    });
  }

  it('the same bytes under several names among the files in flight: processed once, the others duplicates, every row applied once', async () => {
    const { bridge, folder } = await bridgeFor({ watch: false, filesInFlight: 4 });
    await setFaults(emu, { latency_ms: 60, path_prefix: '/v1/inventory/adjustments' });
    const bytes = korrFile(Array.from({ length: 5 }, (_, r) => ['SKU-00001', 1, `TWIN-${r + 1}`] as [string, number, string]));
    for (const n of ['a', 'b', 'c']) writeFileSync(join(folder('inbox'), `KORR_twin_${n}.csv`), bytes);
    await bridge.start();
    expect(await bridge.runNow('stock')).toMatchObject({ files: 3 });
    const outcomes = readdirSync(folder('outbox')).sort().map((n) => readFileSync(join(folder('outbox'), n), 'utf8'));
    expect(outcomes).toHaveLength(3);
    expect(outcomes.filter((text) => /duplicate/i.test(text))).toHaveLength(2);
    const applied = await appliedReferences(emu, 'TWIN-');
    expect(applied.size).toBe(5);
    expect([...applied.values()].every((n) => n === 1)).toBe(true);
  });

  it('a graceful stop with several files in flight: each stops between requests, nothing in doubt; the next run finishes them, every row applied once', async () => {
    const { env, bridge, records, folder } = await bridgeFor({ watch: true, filesInFlight: 4 });
    await setFaults(emu, { latency_ms: 150, path_prefix: '/v1/inventory/adjustments' });
    const names = dropKorr(folder('inbox'), 'STOP', 4, 12);
    await bridge.start();
    await until(() => new Set(eventsOf(records, 'file.claimed').map((r) => r.file)).size === 4, 'four files claimed');
    await until(async () => (await appliedReferences(emu, 'STOP-')).size >= 4, 'some rows applied');
    await bridge.stop('test');
    // Stopped: every file in flight ended between requests and stays in the inbox without a result file; nothing goes out after.
    const left = names.filter((n) => existsSync(join(folder('inbox'), n)));
    expect(left.length).toBeGreaterThan(1);
    for (const name of left) expect(existsSync(join(folder('outbox'), name.replace('.csv', '.result.csv')))).toBe(false);
    const appliedAtStop = (await appliedReferences(emu, 'STOP-')).size;
    expect(appliedAtStop).toBeLessThan(4 * 12);
    await probeWrite(emu, 'PROBE-STOP');
    expect((await appliedReferences(emu, 'STOP-')).size).toBe(appliedAtStop);
    expect(records.some((r) => r.msg?.startsWith('row uncertain'))).toBe(false);

    const again = new BridgeService(env.loaded, { runners: flowRunners, logger: memoryLogger().logger, watchRetryMs: 200, httpServer: false });
    cleanups.push(() => again.stop('test'));
    await setFaults(emu, {});
    await again.start();
    await until(() => names.every((n) => existsSync(join(folder('outbox'), n.replace('.csv', '.result.csv')))), 'every result file');
    const applied = await appliedReferences(emu, 'STOP-');
    expect(applied.size).toBe(4 * 12);
    expect([...applied.values()].every((n) => n === 1)).toBe(true);
  });
});

describe('the order rules', () => {
  /** The repository's inventory-adjustments mapping, made `ordered: true`. */
  function orderedMappings(): string {
    const dir = mkdtempSync(join(tmpdir(), 'wisbridge-ordered-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'inventory-adjustments.yaml');
    copyFileSync(join(root, 'mappings', 'inventory-adjustments.yaml'), file);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^document: /m, 'ordered: true\ndocument: '));
    return dir;
  }

  for (const watch of [false, true]) {
    it(`${watch ? 'watched' : 'a scheduled pass'}: the files of an ordered mapping one at a time, in name order, even when the later names are older`, async () => {
      const { bridge, records, folder } = await bridgeFor({ watch, filesInFlight: 4, mappings: orderedMappings() });
      await setFaults(emu, { latency_ms: 30, path_prefix: '/v1/inventory/adjustments' });
      const names = dropKorr(folder('inbox'), 'ORD', 5, 3);
      // Newest first by modification time: a pass takes the oldest first, so only the rule puts them in name order.
      names.forEach((n, i) => utimesSync(join(folder('inbox'), n), new Date(Date.now() - i * 60_000), new Date(Date.now() - i * 60_000)));
      await concurrency(true);
      await bridge.start();
      if (watch) await watchedRunsOver(records, names.length);
      else expect(await bridge.runNow('stock')).toMatchObject({ result: 'ok', files: 5 });
      const events = records.filter((r) => r.msg === 'processing file' || r.msg === 'file processed').map((r) => `${r.msg === 'processing file' ? 'start' : 'end'} ${r.file}`);
      expect(events).toEqual(names.flatMap((n) => [`start ${n}`, `end ${n}`]));
      expect((await concurrency()).peak).toBe(1);
      expect([...(await appliedReferences(emu, 'ORD-')).values()]).toEqual(Array.from({ length: 15 }, () => 1));
    });
  }

  it('acknowledgements before the ship confirmations of the same family waiting with them, though the ship file is older and the acknowledgement slow', async () => {
    const { bridge, records, folder } = await bridgeFor({ watch: false, filesInFlight: 4, jobMappings: '' });
    const shipment = await multiLineRecord(emu, 'customer_shipments');
    expect(shipment).toMatchObject({ state: 'assigned', acknowledged_at: null });
    const ship = ['ORDER_NO,CARRIER,SERVICE,TRACKING,STRATEGY,SKU,QTY,LOT,SERIALS',
      ...shipment.lines.map((l: { product_code: string; quantity: number }) => `${shipment.number},DHL,DHL_EXPRESS,JD0001,,${l.product_code},${l.quantity},,`)].join('\n') + '\n';
    writeFileSync(join(folder('inbox'), 'SHIP_20261120_order.csv'), ship);
    writeFileSync(join(folder('inbox'), 'ACK_SO_20261120_order.csv'), `NUMBER\n${shipment.number}\n`);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(folder('inbox'), 'SHIP_20261120_order.csv'), old, old);
    // Without the rule the ship file starts first and lands while the acknowledgement still waits on the service.
    await setFaults(emu, { latency_ms: 400, path_prefix: '/v1/customer-shipments/acknowledge.json' });
    await bridge.start();
    expect(await bridge.runNow('stock')).toMatchObject({ result: 'ok', files: 2 });
    const events = records.filter((r) => r.msg === 'processing file' || r.msg === 'file processed').map((r) => `${r.msg === 'processing file' ? 'start' : 'end'} ${r.file}`);
    expect(events).toEqual(['start ACK_SO_20261120_order.csv', 'end ACK_SO_20261120_order.csv', 'start SHIP_20261120_order.csv', 'end SHIP_20261120_order.csv']);
    const after = await recordById(emu, 'customer_shipments', shipment.id);
    expect(after.acknowledged_at).not.toBeNull();
    expect(after.state).toBe('shipped');
    expect(Date.parse(after.acknowledged_at)).toBeLessThanOrEqual(Date.parse(after.shipped_at));
  });
});

/** The most requests of the journal recorded as sent and not yet decided (what a crash leaves in doubt), sampled until `done` resolves. */
async function mostUndecided(journalFile: string, done: Promise<unknown>): Promise<number> {
  const journal = new Database(journalFile, { readonly: true });
  let most = 0;
  let over = false;
  void done.finally(() => { over = true; });
  try {
    while (!over) {
      most = Math.max(most, (journal.prepare("SELECT count(*) AS n FROM requests WHERE status = 'sent'").get() as { n: number }).n);
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    journal.close();
  }
  return most;
}

describe('one cap on the requests to a service (max_requests_in_flight)', () => {
  it('two jobs of several files and requests each never have more requests at the service at once, nor undecided in the journal, than the cap, and every row goes once', async () => {
    const { env, bridge, folder } = await bridgeFor({
      watch: false, filesInFlight: 4, secondJob: true, service: '    requests_in_flight: 2\n    max_requests_in_flight: 3',
    });
    await setFaults(emu, { latency_ms: 40, path_prefix: '/v1/inventory/adjustments' });
    dropKorr(folder('inbox'), 'CAPA', 6, 6);
    dropKorr(folder('inbox', 'drop2'), 'CAPB', 6, 6);
    await concurrency(true);
    await bridge.start();
    // Both jobs at once: 2 jobs x 4 files x 2 requests would be 16 at once without the cap, at the service and
    // recorded in the journal as sent (each one in doubt after a crash).
    const runs = Promise.all([bridge.runNow('stock'), bridge.runNow('stock2')]);
    const undecided = await mostUndecided(join(env.dir, 'journal.sqlite'), runs);
    const [a, b] = await runs;
    expect(a).toMatchObject({ result: 'ok', files: 6 });
    expect(b).toMatchObject({ result: 'ok', files: 6 });
    expect(undecided).toBeGreaterThan(1);
    expect(undecided).toBeLessThanOrEqual(3);
    const seen = await concurrency();
    expect(seen.peak).toBe(3);
    expect(seen.requests).toBe(2 * 6 * 6);
    for (const prefix of ['CAPA-', 'CAPB-']) {
      const applied = await appliedReferences(emu, prefix);
      expect(applied.size).toBe(36);
      expect([...applied.values()].every((n) => n === 1)).toBe(true);
    }
    expect(env.loaded.service('main').max_requests_in_flight).toBe(3);
  });
});
