import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StableFileWatcher } from '../../src/drops/index.js';
import { openJournal } from '../../src/journal/index.js';
import { processFile } from '../../src/pipeline/index.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { cli, finished, korr, runInboundOnce, workspace, type Workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});
const adjustmentRefs = async () => (await adminState(emu, ['adjustments'])).adjustments.map((a: { reference: string }) => a.reference).sort();
const rows = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `SKU-00001;1;Fund;${prefix}-${i + 1};19.11.2026;;ACME`);
const SECRET = 'eyJhbGciOi-THE-TOKEN-OF-ANOTHER-SYSTEM';

/** Every regular file under the drop's folders, read without following links. */
function everyText(ws: Workspace): string {
  let all = '';
  for (const role of ['inbox', 'outbox', 'archive', 'error'] as const) {
    for (const name of readdirSync(ws.folder(role))) {
      const path = join(ws.folder(role), name);
      if (lstatSync(path).isFile()) all += readFileSync(path, 'latin1');
    }
  }
  return all;
}

/** A file outside the inbox that an attacker would like the bridge to read. */
function secretFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'wb-secret-')), 'token');
  writeFileSync(path, `${SECRET}\n`);
  return path;
}

describe('one read, from the bytes that were claimed', () => {
  it('a file replaced while the bridge has it open: the claimed rows are applied once and their bytes archived as the replaced version, the replacement stays and is processed as a file of its own', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const versionA = korr(rows('OLD', 4));
    ws.drop('KORR_swap.csv', versionA);
    runtime = await ws.runtime();
    let swapped = false;
    const first = await processFile(runtime, runtime.loaded.config.inbound[0]!, 'KORR_swap.csv', {
      onProgress: () => {
        if (swapped) return;
        swapped = true;
        writeFileSync(join(ws.dir, 'new.csv'), korr(rows('NEW', 2)));
        renameSync(join(ws.dir, 'new.csv'), join(ws.folder('inbox'), 'KORR_swap.csv'));
      },
    });
    expect(swapped).toBe(true);
    expect(first.outcome).toBe('done');
    expect(first.rows.ok).toBe(4);
    expect(first.reason).toMatch(/DROP_CHANGED: .*replaced or changed after it was read; it is left in place; the bytes read are kept as archive\/KORR_swap\.\d{8}T\d{9}Z\.replaced\.csv$/);
    const keptA = first.movedTo!.slice('archive/'.length);
    expect(ws.files('archive')).toEqual([keptA]);
    expect(ws.read('archive', keptA)).toBe(versionA.toString('latin1'));
    expect(await adjustmentRefs()).toEqual(['OLD-1', 'OLD-2', 'OLD-3', 'OLD-4']);
    expect(ws.result('KORR_swap.result.csv').map((r) => r.document)).toHaveLength(4);
    await runtime.close();
    runtime = undefined;

    const second = (await runInboundOnce(ws)).files[0]!;
    expect(second.outcome).toBe('done');
    expect(second.rows.ok).toBe(2);
    expect(await adjustmentRefs()).toEqual(['NEW-1', 'NEW-2', 'OLD-1', 'OLD-2', 'OLD-3', 'OLD-4']);
    // Both versions applied are in archive/: A's bytes as read, B under its own name.
    expect(ws.files('archive')).toEqual([keptA, 'KORR_swap.csv']);
    expect(ws.read('archive', keptA)).toBe(versionA.toString('latin1'));
    expect(ws.read('archive', 'KORR_swap.csv')).toBe(korr(rows('NEW', 2)).toString('latin1'));
    // Each file has its result file; the first one was not replaced by the second's.
    expect(ws.result('KORR_swap.result.csv')).toHaveLength(4);
    expect(ws.result(second.resultFile!)).toHaveLength(2);
    expect(second.resultFile).not.toBe('KORR_swap.result.csv');
  });

  it('a symbolic link renamed over a listed file is never followed: error/ with a reason, the target never read', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const secret = secretFile();
    ws.drop('ACK_SO_link.csv', 'NUMBER\nSO-1001\n');
    runtime = await ws.runtime();
    const drop = await runtime.drop('wms');
    const [ready] = await new StableFileWatcher(drop, { settleMs: 0 }).scanReady();
    expect(ready?.name).toBe('ACK_SO_link.csv');
    symlinkSync(secret, join(ws.dir, 'link'));
    renameSync(join(ws.dir, 'link'), join(ws.folder('inbox'), 'ACK_SO_link.csv'));

    const report = await processFile(runtime, runtime.loaded.config.inbound[0]!, ready!);
    expect(report.outcome).toBe('rejected');
    expect(report.reason).toMatch(/^DROP_NOT_REGULAR: drop wms: inbox\/ACK_SO_link\.csv is a symbolic link, not a regular file: it is not read$/);
    expect(ws.files('error')).toEqual(['ACK_SO_link.csv', 'ACK_SO_link.csv.error.txt']);
    expect(readlinkSync(join(ws.folder('error'), 'ACK_SO_link.csv'))).toBe(secret); // the link itself was moved
    expect(everyText(ws)).not.toContain(SECRET);
    expect(readFileSync(secret, 'utf8')).toBe(`${SECRET}\n`);
    expect(report.requests).toBe(0);
    expect(ws.files('outbox')).toEqual([]);
  });

  it('a symbolic link swapped in while the copy is mapped stays in the inbox, unread, and is never picked up; the bytes applied are archived', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const secret = secretFile();
    const real = korr(rows('REAL', 3));
    ws.drop('KORR_link.csv', real);
    runtime = await ws.runtime();
    let swapped = false;
    const report = await processFile(runtime, runtime.loaded.config.inbound[0]!, 'KORR_link.csv', {
      onProgress: () => {
        if (swapped) return;
        swapped = true;
        symlinkSync(secret, join(ws.dir, 'link'));
        renameSync(join(ws.dir, 'link'), join(ws.folder('inbox'), 'KORR_link.csv'));
      },
    });
    expect(report.outcome).toBe('done');
    expect(await adjustmentRefs()).toEqual(['REAL-1', 'REAL-2', 'REAL-3']);
    expect(lstatSync(join(ws.folder('inbox'), 'KORR_link.csv')).isSymbolicLink()).toBe(true);
    expect(ws.files('archive')).toEqual([report.movedTo!.slice('archive/'.length)]);
    expect(ws.files('archive')[0]).toMatch(/^KORR_link\.\d{8}T\d{9}Z\.replaced\.csv$/);
    expect(ws.read('archive', ws.files('archive')[0])).toBe(real.toString('latin1'));
    await runtime.close();
    runtime = undefined;
    expect((await runInboundOnce(ws)).files).toEqual([]); // a link is not a file of the inbox
    expect(everyText(ws)).not.toContain(SECRET);
  });
});

describe('result files are never replaced by a worse one', () => {
  it('a re-drop under the same name gets its own result file; the original with its errors is kept', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_20261120.csv');
    await runInboundOnce(ws);
    const original = ws.read('outbox', 'KORR_20261120.result.csv');
    expect(original).toContain(',error,');
    ws.drop('KORR_20261120.csv');
    const again = (await runInboundOnce(ws)).files[0]!;
    expect(again.outcome).toBe('duplicate');
    expect(ws.read('outbox', 'KORR_20261120.result.csv')).toBe(original);
    expect(ws.files('outbox').sort()).toEqual(['KORR_20261120.result.csv', again.resultFile].sort());
    expect(ws.files('archive')).toHaveLength(2);
  });

  it('another file of the same name does not replace the first one\'s result file', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_daily.csv', korr(rows('MON', 2)));
    await runInboundOnce(ws);
    ws.drop('KORR_daily.csv', korr(rows('TUE', 3)));
    const tuesday = (await runInboundOnce(ws)).files[0]!;
    expect(tuesday.outcome).toBe('done');
    expect(ws.result('KORR_daily.result.csv').map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(ws.result(tuesday.resultFile!).map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
  });
});

describe('the archive move is crash-safe', () => {
  it('kill -9 between the link into archive/ and the unlink from the inbox: the restart finishes the move, keeps the real result file, applies nothing again', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_20261120.csv');
    const crashed = await finished(cli(['batch', '--config', ws.configFile], { WISBRIDGE_FAILPOINTS: 'drop.after-link=kill' }));
    expect(crashed.signal).toBe('SIGKILL');
    expect(ws.files('inbox')).toEqual(['KORR_20261120.csv']);
    expect(ws.files('archive')).toEqual(['KORR_20261120.csv']);
    const realResult = ws.read('outbox', 'KORR_20261120.result.csv');
    expect(ws.result('KORR_20261120.result.csv').map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'skipped', 'error']);

    const restart = await finished(cli(['batch', '--config', ws.configFile]));
    expect(restart.code, restart.stderr).toBe(1); // the sample's deliberate bad row: some rows failed
    expect(ws.files('inbox')).toEqual([]);
    expect(ws.files('archive')).toEqual(['KORR_20261120.csv']);
    expect(ws.files('outbox')).toEqual(['KORR_20261120.result.csv']);
    expect(ws.read('outbox', 'KORR_20261120.result.csv')).toBe(realResult);
    expect(await adjustmentRefs()).toHaveLength(3);
    const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
    try {
      const files = await journal.listFiles({ limit: 10 });
      expect(files.map((f) => [f.status, f.disposedTo, f.resultName])).toEqual([['failed', 'archive/KORR_20261120.csv', 'KORR_20261120.result.csv']]);
    } finally {
      await journal.close();
    }
  });

  it('a collision in archive/ is finished under the same suffixed name after a crash, not copied a second time', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    writeFileSync(join(ws.folder('archive'), 'KORR_20261120.csv'), 'an older file of that name');
    ws.drop('KORR_20261120.csv');
    const crashed = await finished(cli(['batch', '--config', ws.configFile], { WISBRIDGE_FAILPOINTS: 'drop.after-link=kill' }));
    expect(crashed.signal).toBe('SIGKILL');
    expect(ws.files('archive')).toHaveLength(2);
    await finished(cli(['batch', '--config', ws.configFile]));
    expect(ws.files('inbox')).toEqual([]);
    expect(ws.files('archive')).toHaveLength(2);
    expect(await adjustmentRefs()).toHaveLength(3);
  });
});

describe('a file left by a crash with rows in doubt', () => {
  it('kill -9 after the service answered, before the journal stored it: the next batch finishes the file, reports its uncertain rows and exits 1', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_20261120.csv');
    const crashed = await finished(cli(['batch', '--config', ws.configFile], { WISBRIDGE_FAILPOINTS: 'send.after-answer=kill' }));
    expect(crashed.signal).toBe('SIGKILL');
    const applied = await adjustmentRefs();
    expect(applied.length).toBeGreaterThan(0);

    const restart = await finished(cli(['batch', '--config', ws.configFile]));
    expect(restart.code, restart.stderr).toBe(1);
    const line = restart.stdout.split('\n').find((l) => l.includes('KORR_20261120.csv'))!;
    // job, file, outcome, ok, error, skipped, uncertain
    const [, , outcome, , , , uncertain] = line.trim().split(/\s{2,}|\s+/);
    expect(outcome).toBe('failed');
    expect(Number(uncertain)).toBeGreaterThan(0);
    expect(ws.result('KORR_20261120.result.csv').map((r) => r.status)).toContain('uncertain');
    expect(ws.files('inbox')).toEqual([]);
    // Adjustments are never sent twice: what the crashed run applied is all there is, whatever was left in doubt.
    expect((await adjustmentRefs()).length).toBeLessThanOrEqual(3);
    expect(await adjustmentRefs()).toEqual(expect.arrayContaining(applied));
  });
});

describe('the archive move of a duplicate is crash-safe too', () => {
  it('kill -9 between the link and the unlink of a re-drop\'s move (its name taken in archive/): the restart finishes it, one copy, one result file', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_20261120.csv');
    await finished(cli(['batch', '--config', ws.configFile]));
    expect(ws.files('archive')).toEqual(['KORR_20261120.csv']);
    ws.drop('KORR_20261120.csv'); // the same bytes again, the same name: a duplicate whose archive name is taken
    const crashed = await finished(cli(['batch', '--config', ws.configFile], { WISBRIDGE_FAILPOINTS: 'drop.after-link=kill' }));
    expect(crashed.signal).toBe('SIGKILL');
    expect(ws.files('inbox')).toEqual(['KORR_20261120.csv']);
    expect(ws.files('archive')).toHaveLength(2);
    expect(ws.files('outbox')).toHaveLength(2);
    const duplicateResult = ws.files('outbox').find((n) => n !== 'KORR_20261120.result.csv')!;
    expect(ws.result(duplicateResult).every((r) => r.status === 'skipped')).toBe(true);

    const restart = await finished(cli(['batch', '--config', ws.configFile]));
    expect(restart.stdout).toMatch(/KORR_20261120\.csv\s+duplicate/);
    expect(ws.files('inbox')).toEqual([]);
    expect(ws.files('archive')).toHaveLength(2);
    expect(ws.files('outbox')).toEqual(['KORR_20261120.result.csv', duplicateResult].sort());
    expect(await adjustmentRefs()).toHaveLength(3);
    const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
    try {
      const [event] = await journal.fileEventsNamed('KORR_20261120.csv');
      expect(event).toMatchObject({ kind: 'duplicate', originalFileId: 1, resultName: duplicateResult, disposedTo: expect.stringMatching(/^archive\/KORR_20261120\.\d{8}T\d+Z\.csv$/) });
      expect(await journal.recentFileEvents(10)).toHaveLength(1);
    } finally {
      await journal.close();
    }
  });
});

describe('a bad file name never blocks the inbox', () => {
  it('a file rejected before its claim is recorded once, not once per instance that met it: the one that moves it records it, the other finds it gone', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR\\20261122.csv', korr(rows('BACKSLASH', 1)));
    ws.drop('NOMAPPING_20261122.csv', 'A;B\n1;2\n');
    runtime = await ws.runtime();
    const other = await ws.runtime();
    try {
      const job = runtime.loaded.config.inbound[0]!;
      // Both instances listed the inbox; the first moves the files to error/ before the second gets to them.
      const [ready, readyToo] = [await new StableFileWatcher(await runtime.drop('wms'), { settleMs: 0 }).scanReady(), await new StableFileWatcher(await other.drop('wms'), { settleMs: 0 }).scanReady()];
      expect(readyToo.map((f) => f.name)).toEqual(ready.map((f) => f.name));
      for (const file of ready) expect((await processFile(runtime, job, file)).outcome).toBe('rejected');
      for (const file of readyToo) {
        const late = await processFile(other, other.loaded.config.inbound[0]!, file);
        expect(late.outcome).toBe('vanished');
        expect(late.reason).toMatch(/; moved to error\/ by another instance meanwhile$/);
      }
      const events = await (await runtime.journal()).recentFileEvents(50);
      expect(events.map((e) => [e.name, e.kind]).sort()).toEqual([['KORR\\20261122.csv', 'rejected'], ['NOMAPPING_20261122.csv', 'rejected']]);
      expect(ws.files('error')).toEqual(['KORR\\20261122.csv', 'KORR\\20261122.csv.error.txt', 'NOMAPPING_20261122.csv', 'NOMAPPING_20261122.csv.error.txt']);
    } finally {
      await other.close();
    }
  });

  it('a backslash name and a 250-byte name go to error/ with a reason, unread; the good file after them is processed', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const long = `KORR_${'x'.repeat(241)}.csv`;
    expect(Buffer.byteLength(long)).toBe(250);
    ws.drop('KORR\\20261120.csv', korr(rows('BACKSLASH', 1)));
    ws.drop(long, korr(rows('LONG', 1)));
    ws.drop('KORR_20261120.csv');
    const report = await runInboundOnce(ws);
    const outcome = Object.fromEntries(report.files.map((f) => [f.file, [f.outcome, f.reason?.slice(0, 10)]]));
    expect(outcome).toEqual({
      'KORR\\20261120.csv': ['rejected', 'FILE_NAME:'],
      [long]: ['rejected', 'FILE_NAME:'],
      'KORR_20261120.csv': ['failed', undefined],
    });
    expect(await adjustmentRefs()).toHaveLength(3); // the good file's three rows; nothing of the bad names
    expect(ws.files('inbox')).toEqual([]);
    const errors = ws.files('error');
    expect(errors).toContain('KORR\\20261120.csv');
    expect(errors).toContain('KORR\\20261120.csv.error.txt');
    expect(errors).toContain(long);
    const longReason = errors.find((n) => n.endsWith('.error.txt') && n.startsWith('KORR_x'))!;
    expect(Buffer.byteLength(longReason)).toBeLessThanOrEqual(255);
    expect(ws.read('error', longReason)).toContain(`file: ${long}`);
    expect(ws.read('error', longReason)).toMatch(/reason: FILE_NAME: the name is 250 bytes long: at most 200/);
    expect(ws.read('error', 'KORR\\20261120.csv.error.txt')).toMatch(/holds a backslash or a control character/);
  });
});

describe('no leaked file descriptors', () => {
  it('files rejected half-way through the mapping pass close their streams: nothing of the drop or the copies stays open', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    for (let i = 0; i < 5; i++) ws.drop(`ACK_SO_broken${i}.csv`, `NUMBER\nSO-1001\n${'SO-1\n'.repeat(2000)}"SO-1002\nSO-1003\n`);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const report = await runInboundOnce(ws);
      expect(report.files.map((f) => f.outcome)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
      const open = readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          return [readlinkSync(`/proc/self/fd/${fd}`)];
        } catch {
          return [];
        }
      });
      expect(open.filter((target) => target.startsWith(ws.dir) || target.includes('.snapshot'))).toEqual([]);
      expect(existsSync(join(ws.dir, 'journal.sqlite.snapshots'))).toBe(true);
      // Its private copies (PID-….snapshot) are gone; the journal's mark stays.
      expect(readdirSync(join(ws.dir, 'journal.sqlite.snapshots'))).toEqual(['journal-was-here']);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => /file descriptor/i.test(w))).toEqual([]);
  });
});

it('the journal\'s copies of files in flight are private to the bridge', async () => {
  const ws = workspace({ url: emu.url, token: emu.token });
  ws.drop('KORR_20261120.csv');
  await runInboundOnce(ws);
  expect(lstatSync(join(ws.dir, 'journal.sqlite.snapshots')).mode & 0o077).toBe(0);
});
