import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJournal, type Journal } from '../../src/journal/index.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { newInstance } from '../../src/service/instance.js';
import { ManualClock } from '../../src/service/clock.js';
import { CronSchedule } from '../../src/schedule/index.js';
import { Scheduler } from '../../src/service/scheduler.js';
import { BridgeService, scheduleCursor } from '../../src/service/service.js';
import type { JobRunners, JobSummary } from '../../src/service/types.js';
import { BASE_CONFIG, deferred, memoryLogger, tempConfig, until, useCleanups } from './support.js';

const iso = (ms: number) => new Date(ms).toISOString();
const cleanups = useCleanups();

describe('cron schedules with time zones', () => {
  it('reads the expression in its time zone, across a DST change', () => {
    const berlin = new CronSchedule('0 2 * * *', 'Europe/Berlin');
    const newYork = new CronSchedule('0 2 * * *', 'America/New_York');
    const from = Date.parse('2026-11-22T00:00:00Z');
    expect(iso(berlin.next(from)!)).toBe('2026-11-22T01:00:00.000Z');
    expect(iso(newYork.next(from)!)).toBe('2026-11-22T07:00:00.000Z');
    // 02:30 does not exist in Berlin on 2026-03-29 (clocks jump 02:00 → 03:00): the run happens at 03:00 CEST.
    const gap = new CronSchedule('30 2 * * *', 'Europe/Berlin');
    expect(iso(gap.next(Date.parse('2026-03-28T12:00:00Z'))!)).toBe('2026-03-29T01:00:00.000Z');
    expect(iso(gap.next(Date.parse('2026-03-29T12:00:00Z'))!)).toBe('2026-03-30T00:30:00.000Z');
    expect(iso(berlin.previous(Date.parse('2026-11-22T01:00:00Z'))!)).toBe('2026-11-22T01:00:00.000Z');
    expect(iso(berlin.previous(Date.parse('2026-11-22T00:59:59Z'))!)).toBe('2026-11-21T01:00:00.000Z');
  });

  it('fires each entry at its due times on a manual clock', async () => {
    const clock = new ManualClock(Date.parse('2026-11-21T12:00:00Z'));
    const scheduler = new Scheduler(clock);
    const fired: string[] = [];
    scheduler.add({ key: 'berlin', schedule: new CronSchedule('0 2 * * *', 'Europe/Berlin'), onTick: (at) => { fired.push(`berlin ${iso(at)} now=${iso(clock.now())}`); } });
    scheduler.add({ key: 'tokyo', schedule: new CronSchedule('15 6 * * 1-5', 'Asia/Tokyo'), onTick: (at) => { fired.push(`tokyo ${iso(at)}`); } });
    scheduler.start();
    expect(iso(scheduler.nextRun('berlin')!)).toBe('2026-11-22T01:00:00.000Z');
    await clock.advanceTo(Date.parse('2026-11-22T00:59:59Z'));
    expect(fired).toEqual([]);
    // 2026-11-21 is a Saturday: Tokyo's weekday job first fires on Monday 23rd 06:15 JST = 22nd 21:15 UTC.
    await clock.advanceTo(Date.parse('2026-11-24T12:00:00Z'));
    expect(fired).toEqual([
      'berlin 2026-11-22T01:00:00.000Z now=2026-11-22T01:00:00.000Z',
      'tokyo 2026-11-22T21:15:00.000Z',
      'berlin 2026-11-23T01:00:00.000Z now=2026-11-23T01:00:00.000Z',
      'tokyo 2026-11-23T21:15:00.000Z',
      'berlin 2026-11-24T01:00:00.000Z now=2026-11-24T01:00:00.000Z',
    ]);
    scheduler.stop();
    expect(clock.pendingTimers).toBe(0);
    await clock.advanceTo(Date.parse('2026-11-26T12:00:00Z'));
    expect(fired).toHaveLength(5);
  });
});

function stubRunners(exportRun: (signal: AbortSignal) => Promise<JobSummary>): JobRunners {
  const none = async (): Promise<JobSummary> => ({ files: [], exports: [] });
  return { inboundPass: none, inboundFile: none, exportRun: (_r, _j, signal) => exportRun(signal) };
}

const EXPORT_JOB = (schedule: string) => `${BASE_CONFIG}
exports:
  - name: nightly-shipments
    work_type: customerShipments
    drop: wms
    service: main
    mapping: customer-shipments-export
    schedule: ${schedule}
`;

async function service(yaml: string, runners: JobRunners, start: string) {
  const env = await tempConfig(yaml);
  const clock = new ManualClock(Date.parse(start));
  const { logger, records } = memoryLogger();
  const bridge = new BridgeService(env.loaded, { runners, clock, logger, httpServer: false });
  cleanups.push(env.cleanup, () => bridge.stop('test'));
  return { env, clock, bridge, records };
}

describe('BridgeService schedules', () => {
  it('never overlaps a job with itself: a tick while busy is skipped, logged and counted', async () => {
    const runs: string[] = [];
    let release = deferred();
    const { clock, bridge, records } = await service(EXPORT_JOB('{ cron: "*/5 * * * *", timezone: Europe/Berlin }'), stubRunners(async () => {
      runs.push(iso(clock.now()));
      await release.promise;
      return { files: [], exports: [{ file: 'a.csv', records: 3, kind: 'work' }] };
    }), '2026-11-22T10:01:00Z');
    await bridge.start();
    // A run starts once its tick is claimed in the journal, a write that waits for the disk: waited for, not counted in turns.
    const running = () => (bridge.healthReport().body.jobs as Record<string, { running: boolean }>)['nightly-shipments'].running;
    await clock.advanceTo(Date.parse('2026-11-22T10:05:00Z'));
    await until(() => runs.length > 0, 'the 10:05 run');
    expect(runs).toEqual(['2026-11-22T10:05:00.000Z']);
    await clock.advanceTo(Date.parse('2026-11-22T10:10:00Z')); // still busy
    expect(runs).toHaveLength(1);
    const skipped = records.filter((r) => r.msg.startsWith('run skipped'));
    expect(skipped).toMatchObject([{ job: 'nightly-shipments', trigger: 'schedule', busyWith: 'schedule', level: 40 }]);
    release.resolve();
    await until(() => !running(), 'the 10:05 run over');
    release = deferred();
    release.resolve();
    await clock.advanceTo(Date.parse('2026-11-22T10:15:00Z'));
    await until(() => runs.length > 1 && !running(), 'the 10:15 run over');
    expect(runs).toEqual(['2026-11-22T10:05:00.000Z', '2026-11-22T10:15:00.000Z']);
    const text = await bridge.metrics.text();
    expect(text).toContain(`wisbridge_job_runs_skipped_total{job="nightly-shipments",instance="${bridge.instance.id}"} 1`);
    expect(text).toContain(`wisbridge_job_runs_total{job="nightly-shipments",trigger="schedule",result="ok",instance="${bridge.instance.id}"} 2`);
    expect(text).toContain(`wisbridge_export_records_total{job="nightly-shipments",instance="${bridge.instance.id}"} 6`);
    expect(bridge.lastRun('nightly-shipments')).toMatchObject({ trigger: 'schedule', result: 'ok', exports: 1, records: 3 });
  });

  it('catches up a run missed while down, once, only when configured', async () => {
    const schedule = '{ cron: "0 2 * * *", timezone: Europe/Berlin, catch_up: true }';
    const runs: string[] = [];
    const runners = stubRunners(async () => { runs.push('run'); return { files: [], exports: [] }; });
    // First start ever: nothing to catch up, the start is remembered.
    const first = await service(EXPORT_JOB(schedule), runners, '2026-11-20T12:00:00Z');
    await first.bridge.start();
    await first.bridge.stop('test');
    const journalPath = first.env.loaded.journal;
    let journal = await openJournal(journalPath);
    expect(await journal.getCursor(scheduleCursor('nightly-shipments'))).toBe('2026-11-20T12:00:00.000Z');
    await journal.close();
    expect(runs).toEqual([]);

    // Down over two nights (21st and 22nd 02:00 Berlin): one catch-up run at start, for the latest missed time.
    writeFileSync(join(first.env.dir, 'wisbridge.yaml'), EXPORT_JOB(schedule));
    const second = await service(EXPORT_JOB(schedule), runners, '2026-11-22T09:00:00Z');
    journal = await openJournal(second.env.loaded.journal);
    await journal.setCursor(scheduleCursor('nightly-shipments'), '2026-11-20T01:00:00.000Z');
    await journal.close();
    await second.bridge.start();
    await second.clock.advance(1000);
    await until(() => second.bridge.lastRun('nightly-shipments'), 'the catch-up run');
    expect(second.records.filter((r) => r.msg.startsWith('catching up'))).toHaveLength(1);
    expect(runs).toEqual(['run']);
    expect(second.bridge.lastRun('nightly-shipments')?.trigger).toBe('catch-up');
    await second.bridge.stop('test');
    journal = await openJournal(second.env.loaded.journal);
    expect(await journal.getCursor(scheduleCursor('nightly-shipments'))).toBe('2026-11-22T01:00:00.000Z');
    await journal.close();

    // Restarted the same morning: the missed run was caught up already.
    const third = await service(EXPORT_JOB(schedule), runners, '2026-11-22T10:00:00Z');
    journal = await openJournal(third.env.loaded.journal);
    await journal.setCursor(scheduleCursor('nightly-shipments'), '2026-11-22T01:00:00.000Z');
    await journal.close();
    await third.bridge.start();
    await third.clock.advance(1000);
    // start() decides a catch-up before it returns (and logs it): none here.
    expect(third.records.filter((r) => r.msg.startsWith('catching up'))).toEqual([]);
    expect(runs).toEqual(['run']);

    // Without catch_up, a missed run is not made up.
    const noCatchUp = '{ cron: "0 2 * * *", timezone: Europe/Berlin }';
    const fourth = await service(EXPORT_JOB(noCatchUp), runners, '2026-11-22T10:00:00Z');
    journal = await openJournal(fourth.env.loaded.journal);
    await journal.setCursor(scheduleCursor('nightly-shipments'), '2026-11-19T01:00:00.000Z');
    await journal.close();
    await fourth.bridge.start();
    await fourth.clock.advance(1000);
    expect(fourth.records.filter((r) => r.msg.startsWith('catching up'))).toEqual([]);
    expect(runs).toEqual(['run']);
    // ...but the next scheduled time runs as usual.
    await fourth.clock.advanceTo(Date.parse('2026-11-23T01:00:00Z'));
    await until(() => runs.length > 1, 'the scheduled run');
    expect(runs).toEqual(['run', 'run']);
  });

  it('a run that was over when the stop came counts as run, though its tick was still being written', async () => {
    const schedule = '{ cron: "0 2 * * *", timezone: Europe/Berlin, catch_up: true }';
    const env = await tempConfig(EXPORT_JOB(schedule));
    cleanups.push(env.cleanup);
    let journal = await openJournal(env.loaded.journal);
    await journal.setCursor(scheduleCursor('nightly-shipments'), '2026-11-20T01:00:00.000Z');
    await journal.close();
    const { logger } = memoryLogger();
    let stopped: Promise<void> | undefined;
    const instance = newInstance();
    // The stop comes as the catch-up run's tick is written: the run itself is over by then.
    const bridge: BridgeService = new BridgeService(env.loaded, {
      runners: stubRunners(async () => ({ files: [], exports: [] })), clock: new ManualClock(Date.parse('2026-11-22T09:00:00Z')), logger, httpServer: false, instance,
      runtime: (signal) => {
        const runtime = createRuntime(env.loaded, { logger, signal, journalOptions: { instance, leaseMs: env.loaded.config.instance.lease_ms } });
        const stopOnFinishTick = (j: Journal): Journal => new Proxy(j, {
          get(target, key) {
            const value = Reflect.get(target, key, target) as unknown;
            if (key !== 'finishTick' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
            return (...args: unknown[]) => {
              stopped ??= bridge.stop('test');
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          },
        });
        return { ...runtime, journal: async () => stopOnFinishTick(await runtime.journal()) };
      },
    });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    await until(() => stopped !== undefined, 'the stop during the tick\'s write');
    await stopped;
    expect(bridge.lastRun('nightly-shipments')).toMatchObject({ trigger: 'catch-up', result: 'ok' });
    journal = await openJournal(env.loaded.journal);
    expect(await journal.getCursor(scheduleCursor('nightly-shipments'))).toBe('2026-11-22T01:00:00.000Z');
    await journal.close();
  });
});

describe('expected files', () => {
  it('raises an alert (log and metrics) when an expected file has not arrived by its cut-off, and not when it has', async () => {
    const yaml = `${BASE_CONFIG}
inbound:
  - name: stock
    drop: wms
    service: main
    watch: false
    expect:
      - pattern: "^STOCK_\\\\d{8}\\\\.csv$"
        cutoff: { cron: "0 6 * * *", timezone: Europe/Berlin }
`;
    const none = async (): Promise<JobSummary> => ({ files: [], exports: [] });
    const { env, clock, bridge, records } = await service(yaml, { inboundPass: none, inboundFile: none, exportRun: none }, '2026-11-22T03:00:00Z');
    await bridge.start();
    // 06:00 Berlin = 05:00 UTC; nothing arrived since the previous cut-off.
    await clock.advanceTo(Date.parse('2026-11-22T04:59:59Z'));
    expect(records.filter((r) => r.alert === 'missed-file')).toEqual([]);
    // A check whose tick another instance took over meanwhile leaves the alert to that instance.
    expect(await bridge.expected.check(bridge.expected.expectations[0]!, Date.parse('2026-11-22T05:00:00Z'), AbortSignal.abort())).toBeUndefined();
    expect(records.filter((r) => r.alert === 'missed-file')).toEqual([]);
    await clock.advanceTo(Date.parse('2026-11-22T05:00:00Z'));
    await until(() => records.some((r) => r.alert === 'missed-file'), 'the alert');
    expect(records.filter((r) => r.alert === 'missed-file')).toMatchObject([
      { level: 40, job: 'stock', pattern: '^STOCK_\\d{8}\\.csv$', cutoff: '2026-11-22T05:00:00.000Z', since: '2026-11-21T05:00:00.000Z', timezone: 'Europe/Berlin' },
    ]);
    let text = await bridge.metrics.text();
    expect(text).toContain(`wisbridge_missed_file_alerts_total{job="stock",pattern="^STOCK_\\\\d{8}\\\\.csv$",instance="${bridge.instance.id}"} 1`);
    expect(text).toContain(`wisbridge_expected_file_missing{job="stock",pattern="^STOCK_\\\\d{8}\\\\.csv$",instance="${bridge.instance.id}"} 1`);
    expect(bridge.healthReport().body.alerts).toHaveLength(1);

    // The next night the file arrives (lies in the inbox) before the cut-off: no new alert.
    await clock.advanceTo(Date.parse('2026-11-23T02:00:00Z'));
    writeFileSync(join(env.dir, 'drop', 'inbox', 'STOCK_20261123.csv'), 'SKU;QTY\n');
    writeFileSync(join(env.dir, 'drop', 'inbox', 'OTHER_20261123.csv'), 'SKU;QTY\n');
    await clock.advanceTo(Date.parse('2026-11-23T05:00:00Z'));
    await until(() => bridge.expected.checked === 3, 'the second cut-off check');
    expect(records.filter((r) => r.alert === 'missed-file')).toHaveLength(1);
    text = await bridge.metrics.text();
    expect(text).toContain(`wisbridge_missed_file_alerts_total{job="stock",pattern="^STOCK_\\\\d{8}\\\\.csv$",instance="${bridge.instance.id}"} 1`);
    expect(text).toContain(`wisbridge_expected_file_missing{job="stock",pattern="^STOCK_\\\\d{8}\\\\.csv$",instance="${bridge.instance.id}"} 0`);
  });
});

describe('expected files on a business calendar', () => {
  it('due by 06:00 on working days, alerted at 08:00: no alert on a holiday or a weekend, none for a file that came late but within the grace period', async () => {
    const yaml = `${BASE_CONFIG}
calendars:
  de-by: { country: DE, region: BY }
inbound:
  - name: stock
    drop: wms
    service: main
    watch: false
    expect:
      - pattern: "^STOCK_\\\\d{8}\\\\.csv$"
        cutoff: { cron: "0 6 * * *", timezone: Europe/Berlin, calendar: de-by }
        grace_minutes: 120
`;
    const none = async (): Promise<JobSummary> => ({ files: [], exports: [] });
    const { env, clock, bridge, records } = await service(yaml, { inboundPass: none, inboundFile: none, exportRun: none }, '2026-12-23T12:00:00Z');
    const missed = () => records.filter((r) => r.alert === 'missed-file');
    await bridge.start();
    // Thursday 24 December is a working day (a bank holiday, not a public one): due 06:00, alert at 08:00 Berlin = 07:00 UTC.
    await clock.advanceTo(Date.parse('2026-12-24T06:59:59Z'));
    expect(missed()).toEqual([]);
    await clock.advanceTo(Date.parse('2026-12-24T07:00:00Z'));
    await until(() => missed().length === 1, 'the alert of 24 December');
    expect(missed()[0]).toMatchObject({ cutoff: '2026-12-24T07:00:00.000Z', since: '2026-12-23T07:00:00.000Z' });
    // Christmas (Friday, Saturday) and Sunday: no file is due, so nothing is alerted.
    await clock.advanceTo(Date.parse('2026-12-28T04:00:00Z'));
    expect(bridge.expected.checked).toBe(1);
    expect(missed()).toHaveLength(1);
    // Monday: the file comes at 07:30 Berlin, after its due time but within the grace period: no alert.
    await clock.advanceTo(Date.parse('2026-12-28T06:30:00Z'));
    writeFileSync(join(env.dir, 'drop', 'inbox', 'STOCK_20261228.csv'), 'SKU;QTY\n');
    await clock.advanceTo(Date.parse('2026-12-28T07:00:00Z'));
    await until(() => bridge.expected.checked === 2, 'the check of 28 December');
    expect(missed()).toHaveLength(1);
  });
});
