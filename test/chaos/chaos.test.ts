import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../support/postgres.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { runChaos, type ChaosOptions } from './harness.js';

/**
 * Several `wisbridge run` instances on one PostgreSQL journal and one drop, while instances are
 * killed (kill -9) and restarted, one is paused past its lease (SIGSTOP … SIGCONT), `batch` and `retry` run beside
 * them, and PostgreSQL restarts; or while the service is down (503s) and requests retry, one instance is paused in
 * its retries, one is cut from the journal, and one runs with its clock off. At the
 * end every row is applied once or reported uncertain (never twice), every file has one result file and one
 * archived copy, every export tick ran once, no shipment is on two work lists (the exports are slower than their
 * schedule, so ticks run on several instances at once, beside another's unwritten list), an unwritten list is taken
 * over only from an owner that was not live, and no stale write got through (test/chaos/checks.ts).
 *
 * The chaos is seeded (WISBRIDGE_CHAOS_SEED repeats a run's choices; the timing of the processes varies) and every
 * event is printed with the figures; the run's folder (configurations, every process's log, the drop) is kept when it
 * fails, or with WISBRIDGE_CHAOS_KEEP=1. The test has a PostgreSQL server of its own: restarting the suite's shared
 * one would break the test files beside it.
 */
const seed = Number(process.env.WISBRIDGE_CHAOS_SEED ?? 24);
const lease = { lease_ms: 3000, heartbeat_ms: 1000 };
let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

const run = async (options: Omit<ChaosOptions, 'server'>) => {
  const report = await runChaos({ ...options, server });
  console.log(report.text);
  expect(report.problems, report.text).toEqual([]);
  return report;
};

describe('chaos: several instances on one journal', () => {
  it('three instances, a local drop, ~200 files and ~100,000 rows; kill -9 every few seconds, one SIGSTOP past the lease, batch and retry beside them, PostgreSQL restarted; exports slower than their schedule', { timeout: 420_000 }, async () => {
    await run({
      name: 'local', seed, instances: 3, lease, scale: 'medium',
      plan: { adjustments: { files: 158, rows: 97_000 }, counts: { files: 20, items: [20, 130] }, ships: { files: 12, perFile: 5 }, receipts: { files: 6, perFile: 3 }, duplicates: 2, rejected: 2 },
      dropOverMs: 20_000,
      kills: { everyMs: [4000, 7000], restartAfterMs: [500, 2000], max: 30 },
      pauseAtMs: 7000,
      pgRestartAtMs: 15_000,
      oneShotsAtMs: 10_000,
      exportEverySeconds: 3,
      slowExportMs: 1600,
      deadlineMs: 150_000,
    });
  });

  it('three instances through a service outage (503s): one paused in its retries\' sleep past its lease, one cut from the journal while its requests retry, one whose clock runs 10 minutes ahead', { timeout: 300_000 }, async () => {
    await run({
      name: 'faults', seed: seed + 2, instances: 3, lease, scale: 'small',
      plan: { adjustments: { files: 30, rows: 12_000 }, counts: { files: 4, items: [10, 40] }, ships: { files: 6, perFile: 4 }, receipts: { files: 3, perFile: 2 }, duplicates: 1, rejected: 1 },
      dropOverMs: 10_000,
      kills: { everyMs: [9000, 9000], restartAfterMs: [1000, 1000], max: 1 },
      outage: { atMs: 3000, forMs: 6000, pauseOne: true },
      journalCut: { slot: 1, atMs: 3500, forMs: 6000 },
      clockSkew: { slot: 3, offset: '+10m' },
      maxAttempts: 20,
      exportEverySeconds: 3,
      deadlineMs: 120_000,
    });
  });

  describe('over a real OpenSSH SFTP drop', () => {
    let sftp: SftpServer;
    beforeAll(async () => {
      sftp = await startSftpServer();
    });
    afterAll(async () => {
      await sftp?.stop();
    });

    it('two instances, ~30 files, one kill -9', { timeout: 240_000 }, async () => {
      await run({
        name: 'sftp', seed: seed + 1, instances: 2, lease, scale: 'small', sftp,
        plan: { adjustments: { files: 22, rows: 8000 }, counts: { files: 3, items: [10, 40] }, ships: { files: 2, perFile: 4 }, receipts: { files: 1, perFile: 2 }, duplicates: 1, rejected: 1 },
        dropOverMs: 6000,
        kills: { everyMs: [5000, 5000], restartAfterMs: [1000, 1000], max: 1 },
        exportEverySeconds: 3,
        deadlineMs: 90_000,
      });
    });
  });
});
